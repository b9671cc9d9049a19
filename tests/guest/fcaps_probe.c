// SPDX-License-Identifier: GPL-2.0
/*
 * fcaps_probe: the program the guest tests give legacy capabilities to and
 * execute. Every subcommand reports on stdout as key=value words.
 * Run as a binfmt_misc interpreter, it is given the binary's path before
 * the subcommand: an absolute path first is skipped.
 *   status            the credentials this exec produced
 *   pause             status, then wait for signals
 *   kill PID SIG      send SIG to PID (a negative PID: a process group):
 *                     kill=0 or kill=-1 errno=N
 *   sched PID OP      OP nice|sched|ioprio|prlimit|sigio on PID: sched=0 or
 *                     -1 errno=N (prlimit: write its RLIMIT_NOFILE; sigio:
 *                     F_SETOWN to it on a pipe, then write the pipe)
 *   sigchld           drop all caps in a child that signals us, then exits
 *   xinit FILE        run FILE pause as a child, then SIGTERM it
 *   thread SIG drop|keep
 *                     start a thread, then tgkill it with SIG from the main
 *                     thread, which first empties its own sets with drop:
 *                     status, then tid=N kill=0|-1 [errno=N] delivered=0|1
 *   ambient CAP       add CAP to pI with capset, then raise it in pA:
 *                     ambient=0 or ambient=-1 errno=N
 *   securebits HEX    PR_SET_SECUREBITS: securebits_set=0 or -1 errno=N
 *   settid            clone3() a child at a free pid it names (set_tid, which
 *                     capability 40 or cap_sys_admin allows): settid=0 or
 *                     -1 errno=N
 *   hold [PID]        capped until SIGUSR1, then sethostname (hold_*=); with
 *                     PID, then ptrace PID, traceme and trace (ourselves),
 *                     root mapped in a namespace, cap_sys_admin into pI,
 *                     securebits 0x10
 *   hold-exec FILE [ARG]...
 *                     as hold, then execv FILE once told
 *   lease FILE        a write lease on FILE until SIGUSR1 (lease_ready=1)
 *   exec FILE [ARG]...
 *                     execv FILE (after the options: --nnp first, say)
 *   trace FILE [ARG]...
 *                     run FILE in a child traced from before its exec:
 *                     trace=0|-1 errno=N (a chain's traced exec)
 *   traceme FILE      a child execs FILE traceme-self: PTRACE_TRACEME,
 *                     which asks about us: traceme=0|-1 errno=N
 *   ptrace PID        PTRACE_SEIZE PID, then detach: ptrace=0|-1 errno=N
 *   xattr OP FILE [HEX]
 *                     OP set (HEX into security.capability), empty,
 *                     remove, set-other, remove-other (security.fcaps_probe):
 *                     xattr=0|-1 errno=N
 *   status ... battery VICTIM ROOT
 *   battery VICTIM ROOT
 *                     status, the capability battery (battery.h) as
 *                     bat_NAME=OUTCOME, then, with pE raised to pP,
 *                     raise=0|-1 and the battery again as rbat_NAME=...;
 *                     VICTIM is a process of BATTERY_UID, ROOT a plain
 *                     root process; after status (and a script's name,
 *                     for a script's "#!PROBE status" line) it runs too
 * Options before the subcommand, applied in the order given:
 *   --setsid          start a new session
 *   --userns          unshare the user namespace, mapping 0 to our euid and
 *                     egid (unshare -Ur); status then reports ids in it
 *   --userns-nested UID
 *                     as root: a namespace whose root is UID (mapped by
 *                     root), then --userns under it as that root
 *   --eff HEX         set the effective set to HEX (within the permitted)
 *   --nnp             PR_SET_NO_NEW_PRIVS
 *   --dumpable        PR_SET_DUMPABLE 1: dumpable=0|-1 errno=N
 *   --inherit CAP     capset: add CAP to pI; inherit=0 or inherit=-1 errno=N
 *   --ambient CAP     as the ambient subcommand, for an exec after it
 *   --securebits HEX  as the securebits subcommand, for an exec after it
 *   --setuid UID      setresgid and setresuid to UID: setuid=0|-1 errno=N
 *   --status          print status before the subcommand's own report
 * The status line: pid ruid euid rgid egid suid fsuid sgid fsgid Eff Prm Inh Amb secure
 * securebits (PR_GET_SECUREBITS).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>
#include "battery.h"
#include "probe_ops.h"
#include "status_line.h"

/* AT_SECURE as the kernel passed it (musl's getauxval() also says 1 for
 * ruid != euid), read in main() before anything can move the environment */
static unsigned long long at_secure;

static void print_status(void)
{
	struct status_line l;

	if (status_line(&l, at_secure)) {
		fprintf(stderr, "fcaps_probe: status: a system call failed\n");
		exit(1);
	}
	fwrite(l.buf, 1, l.n, stdout);
	fflush(stdout);
}

/* vm.mmap_min_addr: the lowest address mmap gives without CAP_SYS_RAWIO */
static unsigned long mmap_min(void)
{
	unsigned long min = 0;
	FILE *f = fopen("/proc/sys/vm/mmap_min_addr", "r");

	if (f) {
		if (fscanf(f, "%lu", &min) != 1)
			min = 0;
		fclose(f);
	}
	return min;
}

static int enter_userns(void);
static int add_inheritable(int cap);

/* What a held process's ceiling decides besides: each asks about this
 * process's capped sets, and the last changes them */
static void hold_more(pid_t pid)
{
	char *trace[] = { "/usr/local/bin/fcaps_probe", "status", NULL };
	pid_t child;
	int status;

	probe_ptrace(pid);
	probe_traceme(trace[0]);
	probe_trace(trace);
	fflush(stdout);
	child = fork();
	if (!child) {
		int step = enter_userns();

		printf("userns_errno=%d userns_step=%d\n", step ? errno : 0, step);
		fflush(stdout);
		_exit(0);
	}
	if (child > 0)
		waitpid(child, &status, 0);
	probe_report("inherit", add_inheritable(CAP_SYS_ADMIN));
	probe_report("securebits_set", prctl(PR_SET_SECUREBITS, 0x10, 0, 0, 0));
}

/* hold: capped until told (SIGUSR1), then sethostname(2) and a page at 0
 * and at vm.mmap_min_addr, as it stands, in this very process: no exec
 * that would give it new credentials */
static volatile sig_atomic_t got_usr1;

static void on_usr1(int sig)
{
	(void)sig;
	got_usr1 = 1;
}

/* print hold_ready=1, then wait for SIGUSR1 */
static void wait_usr1(void)
{
	sigset_t block, old;

	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, &old);
	signal(SIGUSR1, on_usr1);
	printf("hold_ready=1\n");
	fflush(stdout);
	while (!got_usr1)
		sigsuspend(&old);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

static int do_hold(pid_t pid)
{
	char name[64];

	wait_usr1();
	if (gethostname(name, sizeof(name) - 1))
		return 1;
	name[sizeof(name) - 1] = 0;
	probe_report("hold_sethostname", sethostname(name, strlen(name)));
	printf("hold_mmap_low=%d hold_mmap_min=%d\n", battery_map_at(0),
	       battery_map_at(mmap_min()));
	if (pid > 0)
		hold_more(pid);
	return 0;
}

/*
 * lease FILE: a write lease on FILE until told (SIGUSR1). Meanwhile an
 * exec whose ELF interpreter is FILE waits in open_exec(), after its
 * bprm_check_security and before its bprm_creds_from_file: the tests
 * change the mode there. The lease break's SIGIO is ignored: the opener
 * waits until the lease goes (or lease-break-time, 45 s).
 */
static int do_lease(const char *path)
{
	sigset_t block, old;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fcntl(fd, F_SETLEASE, F_WRLCK)) {
		probe_report("lease", -1);
		return 1;
	}
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, &old);
	signal(SIGIO, SIG_IGN);
	signal(SIGUSR1, on_usr1);
	printf("lease_ready=1\n");
	fflush(stdout);
	while (!got_usr1)
		sigsuspend(&old);
	probe_report("lease_released", fcntl(fd, F_SETLEASE, F_UNLCK));
	close(fd);
	return 0;
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
	probe_report("kill", kill(pid, SIGTERM));
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

/* prlimit(2) writing @pid's RLIMIT_NOFILE with the value it has: what
 * decides is the write, not the value */
static int set_limit(pid_t pid)
{
	struct rlimit r;

	if (prlimit(pid, RLIMIT_NOFILE, NULL, &r))
		return -1;
	return prlimit(pid, RLIMIT_NOFILE, &r, NULL);
}

/* SIGIO aimed at @pid with F_SETOWN on a pipe, raised by a write: the
 * write succeeds whether the kernel delivers it or not (the target, which
 * does not catch SIGIO, dies of it if it does) */
static int aim_sigio(pid_t pid)
{
	int p[2];

	if (pipe(p) || fcntl(p[0], F_SETOWN, pid) || fcntl(p[0], F_SETFL, O_ASYNC | O_NONBLOCK))
		return -1;
	return write(p[1], "x", 1) == 1 ? 0 : -1;
}

/* clone3()'s arguments to set_tid (CLONE_ARGS_SIZE_VER1): glibc has no
 * wrapper, and <linux/sched.h> would define <sched.h>'s flags again */
struct probe_clone_args {
	__u64 flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
	__u64 set_tid, set_tid_size;
};

/* A child at a pid we pick: checkpoint_restore_ns_capable(), the one
 * capable() call capability 40 decides that is not an ambient raise */
static int do_settid(void)
{
	struct probe_clone_args a = { .exit_signal = SIGCHLD, .set_tid_size = 1 };
	FILE *f = fopen("/proc/sys/kernel/pid_max", "r");
	pid_t tid = 0, child;
	int max = 0;

	if (!f || fscanf(f, "%d", &max) != 1)
		max = 0;
	if (f)
		fclose(f);
	for (tid = max - 1; tid > 300; tid--)
		if (kill(tid, 0) && errno == ESRCH)
			break;
	a.set_tid = (unsigned long)&tid;
	child = syscall(SYS_clone3, &a, sizeof(a));
	if (child == 0)
		_exit(0);
	if (child < 0)
		return -1;
	waitpid(child, NULL, 0);
	if (child != tid) {
		errno = EPROTO;
		return -1;
	}
	return 0;
}

static int do_sched(pid_t pid, const char *op)
{
	struct sched_param sp = { 0 };

	if (!strcmp(op, "nice"))
		probe_report("sched", setpriority(PRIO_PROCESS, pid, 5));
	else if (!strcmp(op, "sched"))
		/* musl's sched_setscheduler() is ENOSYS without a system call */
		probe_report("sched", (int)syscall(SYS_sched_setscheduler, pid, SCHED_BATCH, &sp));
	else if (!strcmp(op, "ioprio"))	/* IOPRIO_CLASS_BE, level 4 */
		probe_report("sched", (int)syscall(SYS_ioprio_set, 1, pid, (2 << 13) | 4));
	else if (!strcmp(op, "prlimit"))
		probe_report("sched", set_limit(pid));
	else if (!strcmp(op, "sigio"))
		probe_report("sched", aim_sigio(pid));
	else
		return 2;
	return 0;
}

static int capset_all(__u64 e, __u64 p, __u64 i)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = {
		{ (__u32)e, (__u32)p, (__u32)i },
		{ (__u32)(e >> 32), (__u32)(p >> 32), (__u32)(i >> 32) },
	};

	return syscall(SYS_capset, &hdr, d);
}

/* Only the effective set changes: permitted, inheritable and with them the
 * ambient set stay. */
static int set_effective(__u64 e)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &hdr, d))
		return -1;
	d[0].effective = (__u32)e;
	d[1].effective = (__u32)(e >> 32);
	return syscall(SYS_capset, &hdr, d);
}

/* What capset allows any process: every permitted capability effective */
static int raise_effective(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &hdr, d))
		return -1;
	d[0].effective = d[0].permitted;
	d[1].effective = d[1].permitted;
	return syscall(SYS_capset, &hdr, d);
}

/* capset: @cap added to the inheritable set, the rest as it is */
static int add_inheritable(int cap)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &hdr, d))
		return -1;
	d[cap / 32].inheritable |= 1U << (cap % 32);
	return syscall(SYS_capset, &hdr, d);
}

static int do_ambient(int cap)
{
	if (add_inheritable(cap))
		return -1;
	return prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0);
}

static int do_battery(pid_t victim, pid_t root)
{
	print_status();
	run_battery("", victim, root);
	probe_report("raise", raise_effective());
	run_battery("r", victim, root);
	return 0;
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok ? 0 : -1;
}

/* unshare -Ur: a new user namespace in which we are root, mapped to our
 * own euid and egid. A process that gained caps by exec is not dumpable,
 * which makes its /proc files root's; becoming dumpable lets it write its
 * own maps, as an ordinary unshare -Ur does. Dumpable again after the
 * unshare: commit_creds() resets it when pP grows, as it does for a capped
 * process given every capability in the new namespace. 6.1 lets it map
 * root only if it held CAP_SETFCAP when it unshared (verify_root_map()).
 * Returns 0, or the step that failed: 1 unshare, 2 uid_map, 3 setgroups,
 * 4 gid_map. */
static int enter_userns(void)
{
	char map[64];
	uid_t euid = geteuid();
	gid_t egid = getegid();

	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) || unshare(CLONE_NEWUSER) ||
	    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
		return 1;
	snprintf(map, sizeof(map), "0 %u 1\n", euid);
	if (write_file("/proc/self/uid_map", map))
		return 2;
	if (write_file("/proc/self/setgroups", "deny\n"))
		return 3;
	snprintf(map, sizeof(map), "0 %u 1\n", egid);
	return write_file("/proc/self/gid_map", map) ? 4 : 0;
}

/*
 * As root: a user namespace whose root is @uid, its maps written by a
 * helper left in this namespace (only root here may map another uid), then
 * one of our own under it as --userns makes: its owner is @uid, its
 * parent's owner is root, so @uid's processes outside hold nothing in it.
 */
static int enter_userns_nested(uid_t uid)
{
	char map[32], path[64];
	pid_t self = getpid(), helper;
	int go[2], status;
	char c;

	if (pipe(go))
		return 11;
	helper = fork();
	if (helper < 0)
		return 12;
	if (!helper) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(EPIPE);
		/* its status is the errno of the write that failed */
		snprintf(map, sizeof(map), "0 %u 1\n", uid);
		snprintf(path, sizeof(path), "/proc/%d/uid_map", self);
		if (write_file(path, map))
			_exit(errno & 0xff ? errno : EIO);
		snprintf(path, sizeof(path), "/proc/%d/gid_map", self);
		_exit(write_file(path, map) ? errno & 0xff ? errno : EIO : 0);
	}
	close(go[0]);
	if (unshare(CLONE_NEWUSER) || write(go[1], "x", 1) != 1) {
		kill(helper, SIGKILL);
		waitpid(helper, NULL, 0);
		return 13;
	}
	close(go[1]);
	if (waitpid(helper, &status, 0) != helper)
		return 14;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		/* the helper's errno, not whatever ours holds */
		errno = WIFEXITED(status) ? WEXITSTATUS(status) : ECHILD;
		return 14;
	}
	/* the namespace's root, that is @uid: all capabilities there */
	if (setresgid(0, 0, 0) || setresuid(0, 0, 0))
		return 15;
	return enter_userns();
}

static volatile sig_atomic_t delivered;
static volatile pid_t thread_tid;

static void on_signal(int sig)
{
	(void)sig;
	delivered = 1;
}

static void *pause_thread(void *arg)
{
	(void)arg;
	thread_tid = gettid();
	for (;;)
		pause();
	return NULL;
}

/* Within a thread group 6.1 skips the uid check but still asks the LSMs,
 * and credentials are per thread: capset changes the caller's alone. */
static int do_thread(int sig, int drop)
{
	pthread_t t;
	int rc, err = 0;

	if (sig > 0 && sig != SIGKILL && sig != SIGSTOP)
		signal(sig, on_signal);
	if (pthread_create(&t, NULL, pause_thread, NULL))
		return 1;
	while (!thread_tid)
		usleep(1000);
	if (drop && capset_all(0, 0, 0)) {
		printf("capset_errno=%d\n", errno);
		return 1;
	}
	rc = syscall(SYS_tgkill, getpid(), thread_tid, sig);
	if (rc)
		err = errno;
	for (int n = 0; !rc && sig > 0 && !delivered && n < 200; n++)
		usleep(1000);
	printf("tid=%d kill=%d", (int)thread_tid, rc ? -1 : 0);
	if (rc)
		printf(" errno=%d", err);
	printf(" delivered=%d\n", (int)delivered);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv, char **envp)
{
	int status_first = 0;
	const char *cmd;

	at_secure = status_auxv(envp, AT_SECURE);
	if (argc > 1 && argv[1][0] == '/')
		argc--, argv++;
	for (; argc > 1 && !strncmp(argv[1], "--", 2); argc--, argv++) {
		if (!strcmp(argv[1], "--status")) {
			status_first = 1;
		} else if (!strcmp(argv[1], "--setsid")) {
			if (setsid() < 0) {
				printf("setsid_errno=%d\n", errno);
				return 1;
			}
		} else if (!strcmp(argv[1], "--userns")) {
			int step = enter_userns();

			if (step) {
				printf("userns_errno=%d userns_step=%d\n", errno, step);
				return 1;
			}
		} else if (!strcmp(argv[1], "--userns-nested") && argc > 2) {
			int step = enter_userns_nested(atoi(argv[2]));

			if (step) {
				printf("userns_errno=%d userns_step=%d\n", errno, step);
				return 1;
			}
			argc--, argv++;
		} else if (!strcmp(argv[1], "--dumpable")) {
			probe_report("dumpable", prctl(PR_SET_DUMPABLE, 1, 0, 0, 0));
		} else if (!strcmp(argv[1], "--nnp")) {
			if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
				printf("nnp_errno=%d\n", errno);
				return 1;
			}
		} else if (!strcmp(argv[1], "--inherit") && argc > 2) {
			/* reported, not fatal: what the next exec makes of it */
			probe_report("inherit", add_inheritable(atoi(argv[2])));
			argc--, argv++;
		} else if (!strcmp(argv[1], "--ambient") && argc > 2) {
			probe_report("ambient", do_ambient(atoi(argv[2])));
			argc--, argv++;
		} else if (!strcmp(argv[1], "--securebits") && argc > 2) {
			probe_report("securebits_set",
			       prctl(PR_SET_SECUREBITS, strtoul(argv[2], NULL, 16), 0, 0, 0));
			argc--, argv++;
		} else if (!strcmp(argv[1], "--setuid") && argc > 2) {
			probe_setuid(atoi(argv[2]));
			argc--, argv++;
		} else if (!strcmp(argv[1], "--eff") && argc > 2) {
			if (set_effective(strtoull(argv[2], NULL, 16))) {
				printf("capset_errno=%d\n", errno);
				return 1;
			}
			argc--, argv++;
		} else {
			fprintf(stderr, "fcaps_probe: unknown option %s\n", argv[1]);
			return 2;
		}
	}
	cmd = argc > 1 ? argv[1] : "status";
	if (status_first && strcmp(cmd, "status") && strcmp(cmd, "pause"))
		print_status();

	if (!strcmp(cmd, "status")) {
		for (int i = 2; i + 2 < argc; i++)
			if (!strcmp(argv[i], "battery"))
				return do_battery(atoi(argv[i + 1]), atoi(argv[i + 2]));
		print_status();
	} else if (!strcmp(cmd, "pause")) {
		print_status();
		for (;;)
			pause();
	} else if (!strcmp(cmd, "kill") && argc == 4) {
		probe_report("kill", kill(atoi(argv[2]), atoi(argv[3])));
	} else if (!strcmp(cmd, "sched") && argc == 4) {
		return do_sched(atoi(argv[2]), argv[3]);
	} else if (!strcmp(cmd, "sigchld")) {
		return do_sigchld();
	} else if (!strcmp(cmd, "xinit") && argc == 3) {
		return do_xinit(argv[2]);
	} else if (!strcmp(cmd, "ambient") && argc == 3) {
		probe_report("ambient", do_ambient(atoi(argv[2])));
	} else if (!strcmp(cmd, "settid") && argc == 2) {
		probe_report("settid", do_settid());
	} else if (!strcmp(cmd, "securebits") && argc == 3) {
		probe_report("securebits_set", prctl(PR_SET_SECUREBITS, strtoul(argv[2], NULL, 16), 0, 0, 0));
	} else if (!strcmp(cmd, "exec") && argc >= 3) {
		execv(argv[2], argv + 2);
		printf("exec_errno=%d\n", errno);
		return 1;
	} else if (!strcmp(cmd, "trace") && argc >= 3) {
		return probe_trace(argv + 2);
	} else if (!strcmp(cmd, "traceme") && argc == 3) {
		return probe_traceme(argv[2]);
	} else if (!strcmp(cmd, "traceme-self")) {
		probe_traceme_self();
	} else if (!strcmp(cmd, "ptrace") && argc == 3) {
		probe_ptrace(atoi(argv[2]));
	} else if (!strcmp(cmd, "xattr") && (argc == 4 || argc == 5)) {
		return probe_xattr(argv[2], argv[3], argc == 5 ? argv[4] : NULL);
	} else if (!strcmp(cmd, "battery") && argc == 4) {
		return do_battery(atoi(argv[2]), atoi(argv[3]));
	} else if (!strcmp(cmd, "hold-exec") && argc > 2) {
		wait_usr1();
		execv(argv[2], argv + 2);
		printf("exec_errno=%d\n", errno);
		return 1;
	} else if (!strcmp(cmd, "hold")) {
		return do_hold(argc > 2 ? atoi(argv[2]) : 0);
	} else if (!strcmp(cmd, "lease") && argc == 3) {
		return do_lease(argv[2]);
	} else if (!strcmp(cmd, "thread") && argc == 4) {
		return do_thread(atoi(argv[2]), !strcmp(argv[3], "drop"));
	} else {
		fprintf(stderr, "usage: fcaps_probe [--setsid] [--userns] [--nnp] [--eff HEX] [--status] "
			"status|pause|kill PID SIG|sched PID nice|sched|ioprio|sigchld|"
			"xinit FILE|thread SIG drop|keep|battery VICTIM ROOT|ambient CAP|"
			"securebits HEX|hold|lease FILE|exec FILE [ARG]...|trace FILE [ARG]...|"
			"traceme FILE|ptrace PID|xattr OP FILE [HEX]\n");
		return 2;
	}
	return 0;
}
