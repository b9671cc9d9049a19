// SPDX-License-Identifier: GPL-2.0
/*
 * fcaps_probe: the program the guest tests give legacy capabilities to and
 * execute. Every subcommand reports on stdout as key=value words.
 *   status            the credentials this exec produced
 *   pause             status, then wait for signals
 *   kill PID SIG      send SIG to PID: kill=0 or kill=-1 errno=N
 *   sched PID OP      OP nice|sched|ioprio on PID: sched=0 or -1 errno=N
 *   sigchld           drop all caps in a child that signals us, then exits
 *   xinit FILE        run FILE pause as a child, then SIGTERM it
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>

static void print_status(void)
{
	char line[256], out[512] = "";
	FILE *f = fopen("/proc/self/status", "r");
	unsigned int ruid = 0, euid = 0;

	if (!f) {
		perror("fcaps_probe: /proc/self/status");
		exit(1);
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v;
		char key[16];

		if (sscanf(line, "Uid: %u %u", &ruid, &euid) == 2)
			continue;
		if (sscanf(line, "Cap%15[A-Za-z]: %llx", key, &v) == 2 &&
		    strcmp(key, "Bnd") != 0) {
			size_t n = strlen(out);

			snprintf(out + n, sizeof(out) - n, " %s=%#llx", key, v);
		}
	}
	fclose(f);
	printf("pid=%d ruid=%u euid=%u%s secure=%lu\n", getpid(), ruid, euid,
	       out, getauxval(AT_SECURE));
	fflush(stdout);
}

static void report(const char *what, int rc)
{
	if (rc == 0)
		printf("%s=0\n", what);
	else
		printf("%s=-1 errno=%d\n", what, errno);
	fflush(stdout);
}

static volatile sig_atomic_t got_sigchld;

static void on_sigchld(int sig)
{
	(void)sig;
	got_sigchld = 1;
}

/* A kernel-originated SIGCHLD reaches us from a child holding no caps,
 * while a signal that child sends itself is refused. */
static int do_sigchld(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct none[2] = { 0 };
	int pfd[2], child_errno = -1, status;
	sigset_t block, old;
	pid_t pid;

	signal(SIGCHLD, on_sigchld);
	signal(SIGUSR1, SIG_IGN);
	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &old);
	if (pipe(pfd))
		return 1;
	pid = fork();
	if (pid == 0) {
		int e = 0;

		if (syscall(SYS_capset, &hdr, none))
			e = -errno;
		else if (kill(getppid(), SIGUSR1))
			e = errno;
		if (write(pfd[1], &e, sizeof(e)) != sizeof(e))
			_exit(1);
		_exit(0);
	}
	if (read(pfd[0], &child_errno, sizeof(child_errno)) != sizeof(child_errno))
		child_errno = -1000;
	while (!got_sigchld)
		sigsuspend(&old);
	waitpid(pid, &status, 0);
	printf("sigchld=%d child_kill_errno=%d\n", (int)got_sigchld, child_errno);
	return 0;
}

static int do_xinit(const char *file)
{
	int pfd[2], status;
	char buf[512];
	ssize_t n;
	pid_t pid;

	if (pipe(pfd))
		return 1;
	pid = fork();
	if (pid == 0) {
		dup2(pfd[1], 1);
		execl(file, file, "pause", (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	n = read(pfd[0], buf, sizeof(buf) - 1);	/* the server is up */
	if (n <= 0)
		return 1;
	printf("child=%d ", pid);
	report("kill", kill(pid, SIGTERM));
	if (waitpid(pid, &status, WNOHANG) == 0) {
		usleep(100000);
		if (waitpid(pid, &status, WNOHANG) == 0) {
			printf("child_alive=1\n");
			return 0;
		}
	}
	printf("child_alive=0 child_signal=%d\n",
	       WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	return 0;
}

static int do_sched(pid_t pid, const char *op)
{
	struct sched_param sp = { 0 };

	if (!strcmp(op, "nice"))
		report("sched", setpriority(PRIO_PROCESS, pid, 5));
	else if (!strcmp(op, "sched"))
		report("sched", sched_setscheduler(pid, SCHED_BATCH, &sp));
	else if (!strcmp(op, "ioprio"))	/* IOPRIO_CLASS_BE, level 4 */
		report("sched", (int)syscall(SYS_ioprio_set, 1, pid, (2 << 13) | 4));
	else
		return 2;
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "status";

	if (!strcmp(cmd, "status")) {
		print_status();
	} else if (!strcmp(cmd, "pause")) {
		print_status();
		for (;;)
			pause();
	} else if (!strcmp(cmd, "kill") && argc == 4) {
		report("kill", kill(atoi(argv[2]), atoi(argv[3])));
	} else if (!strcmp(cmd, "sched") && argc == 4) {
		return do_sched(atoi(argv[2]), argv[3]);
	} else if (!strcmp(cmd, "sigchld")) {
		return do_sigchld();
	} else if (!strcmp(cmd, "xinit") && argc == 3) {
		return do_xinit(argv[2]);
	} else {
		fprintf(stderr, "usage: fcaps_probe status|pause|kill PID SIG|"
			"sched PID nice|sched|ioprio|sigchld|xinit FILE\n");
		return 2;
	}
	return 0;
}
