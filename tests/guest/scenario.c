// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <bpf/bpf.h>
#include "fcaps.h"
#include "scenario.h"

static int passed, failed;

void check(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s: ", ok ? "PASS" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	ok ? passed++ : failed++;
}

int finish(void)
{
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}

static void die(const char *what)
{
	fprintf(stderr, "scenario child: %s: %s\n", what, strerror(errno));
	_exit(126);
}

static int capset_sets(__u64 e, __u64 p, __u64 i)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = {
		{ (__u32)e, (__u32)p, (__u32)i },
		{ (__u32)(e >> 32), (__u32)(p >> 32), (__u32)(i >> 32) },
	};

	return syscall(SYS_capset, &hdr, d);
}

/* In the forked child, as root: become @c. */
static void become(const struct creds *c)
{
	__u64 inh = c->pi | c->pa;

	if (inh && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0))
		die("PR_SET_KEEPCAPS");
	if (c->uid && (setgroups(0, NULL) || setresgid(c->uid, c->uid, c->uid) ||
		       setresuid(c->uid, c->uid, c->uid)))
		die("setresuid");
	if (inh) {
		/* root keeps its full sets; others keep only what pA needs */
		__u64 full = (2ULL << 40) - 1;

		if (capset_sets(c->uid ? 0 : full, c->uid ? c->pa : full, inh))
			die("capset");
		for (int b = 0; b < 64; b++)
			if ((c->pa >> b) & 1 &&
			    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, b, 0, 0))
				die("PR_CAP_AMBIENT_RAISE");
	}
	if (c->noroot && prctl(PR_SET_SECUREBITS, SECBIT_NOROOT, 0, 0, 0))
		die("PR_SET_SECUREBITS");
	if (c->nnp && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		die("PR_SET_NO_NEW_PRIVS");
}

static void exec_or_report(char *const argv[])
{
	execv(argv[0], argv);
	printf("exec_errno=%d pid=%d\n", errno, getpid());
	fflush(stdout);
	_exit(127);
}

/* The tracer lacks CAP_SYS_PTRACE, so the kernel treats the exec as unsafe. */
static void exec_traced(char *const argv[])
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			die("PTRACE_TRACEME");
		exec_or_report(argv);
	}
	while (waitpid(pid, &status, 0) == pid && WIFSTOPPED(status)) {
		int sig = WSTOPSIG(status) == SIGTRAP ? 0 : WSTOPSIG(status);

		ptrace(PTRACE_DETACH, pid, NULL, (void *)(long)sig);
	}
	_exit(0);
}

pid_t spawn(const struct creds *c, char *const argv[], int *out)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		become(c);
		if (c->traced)
			exec_traced(argv);
		exec_or_report(argv);
	}
	close(p[1]);
	*out = p[0];
	return pid;
}

const char *run_pair_procs(const struct creds *tc, const char *target,
			   const struct creds *sc, const char *sender,
			   const char *op, int sig, pid_t *tp, pid_t *sp)
{
	char tpid[16], arg[16];
	char *targv[] = { (char *)target, "pause", NULL };
	char *sargv[] = { (char *)sender, op ? "sched" : "kill", tpid, arg, NULL };
	const char *line;
	int tfd, sfd;

	*tp = spawn(tc, targv, &tfd);
	read_output(tfd, 0);		/* the target has exec'd */
	snprintf(tpid, sizeof(tpid), "%d", *tp);
	if (op)
		snprintf(arg, sizeof(arg), "%s", op);
	else
		snprintf(arg, sizeof(arg), "%d", sig);
	*sp = spawn(sc, sargv, &sfd);
	line = read_output(sfd, 1);
	close(sfd);
	waitpid(*sp, NULL, 0);
	reap(*tp);
	close(tfd);
	return line;
}

const char *run_to_end(const struct creds *c, char *const argv[], pid_t *pid)
{
	const char *out;
	int fd;

	*pid = spawn(c, argv, &fd);
	out = read_output(fd, 1);
	close(fd);
	reap(*pid);
	if (has_field(out, "child") && field(out, "child_alive") == 1)
		reap((pid_t)field(out, "child"));
	return out;
}

char *read_output(int fd, int all)
{
	static char buf[4096];
	size_t n = 0;
	ssize_t r;

	while (n < sizeof(buf) - 1 && (r = read(fd, buf + n, all ? sizeof(buf) - 1 - n : 1)) > 0) {
		n += r;
		if (!all && buf[n - 1] == '\n')
			break;
	}
	buf[n] = 0;
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = 0;
	return buf;
}

int has_field(const char *line, const char *key)
{
	size_t k = strlen(key);

	for (const char *s = line; (s = strstr(s, key)); s += k)
		if ((s == line || s[-1] == ' ' || s[-1] == '\n') && s[k] == '=')
			return 1;
	return 0;
}

unsigned long long field(const char *line, const char *key)
{
	size_t k = strlen(key);

	for (const char *s = line; (s = strstr(s, key)); s += k)
		if ((s == line || s[-1] == ' ' || s[-1] == '\n') && s[k] == '=')
			return strtoull(s + k + 1, NULL, 0);
	return ~0ULL;
}

void reap(pid_t pid)
{
	int status;

	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
}

int set_switch(const char *name, int value)
{
	char path[128], v[8];
	int fd, n, rc = 0;

	snprintf(path, sizeof(path), "/proc/sys/kernel/fcaps/%s", name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = snprintf(v, sizeof(v), "%d\n", value);
	if (write(fd, v, n) != n)
		rc = -errno;
	close(fd);
	return rc;
}

void reset_switches(void)
{
	if (access("/proc/sys/kernel/fcaps", F_OK))
		return;		/* the stock kernel has none */
	if (set_switch("exec", 1) || set_switch("kill", 1) ||
	    set_switch("nosuid_ignore", 0)) {
		fprintf(stderr, "scenario: cannot reset kernel.fcaps switches\n");
		exit(1);
	}
}

int find_decision(__u32 hook, __u32 pid, struct fcaps_decision *out)
{
	int fd = bpf_obj_get(FCAPS_PIN_DIR "/decisions"), found = -1;
	struct fcaps_decision d;
	__u64 key, next;

	if (fd < 0)
		return -1;
	for (int more = !bpf_map_get_next_key(fd, NULL, &next); more;) {
		key = next;
		more = !bpf_map_get_next_key(fd, &key, &next);
		if (!bpf_map_lookup_elem(fd, &key, &d) && d.hook == hook && d.pid == pid &&
		    (found || d.seq > out->seq)) {
			*out = d;
			found = 0;
		}
	}
	close(fd);
	return found;
}

int bpf_switches(__u32 exec, __u32 kill, __u32 nosuid_ignore)
{
	int fd = bpf_obj_get(FCAPS_PIN_DIR "/config"), rc;
	struct fcaps_config cfg;
	__u32 zero = 0;

	if (fd < 0)
		return -1;
	rc = bpf_map_lookup_elem(fd, &zero, &cfg);
	cfg.exec = exec;
	cfg.kill = kill;
	cfg.nosuid_ignore = nosuid_ignore;
	rc = rc || bpf_map_update_elem(fd, &zero, &cfg, BPF_ANY);
	close(fd);
	return rc ? -1 : 0;
}
