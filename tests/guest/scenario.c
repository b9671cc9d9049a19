// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
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
#include "config.h"
#include "ring.h"
#include "scenario.h"

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

/* The calling thread's permitted set. */
static __u64 permitted_now(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &hdr, d))
		die("capget");
	return d[0].permitted | (__u64)d[1].permitted << 32;
}

/* In the forked child, as root with every capability: become @c. */
static void become(const struct creds *c)
{
	__u64 inh = c->pi | c->pa, all = permitted_now();
	uid_t euid = c->seteuid ? c->euid : c->uid;
	unsigned int bits = c->securebits;

	/* pI first: the bounding set drop below must not stop pI naming a
	 * capability outside it (only the file's fP is bounded) */
	if (inh && capset_sets(all, all, inh))
		die("capset (root)");
	for (int b = 0; b < 64; b++)
		if ((c->bset_drop >> b) & 1 && prctl(PR_CAPBSET_DROP, b, 0, 0, 0))
			die("PR_CAPBSET_DROP");
	/* the securebits need CAP_SETPCAP: set them while root; keep the
	 * permitted set across setresuid when pA needs it */
	if (inh && (c->uid || euid))
		bits |= SECBIT_KEEP_CAPS;
	if (bits && prctl(PR_SET_SECUREBITS, bits, 0, 0, 0))
		die("PR_SET_SECUREBITS");
	if ((c->uid || euid) && (setgroups(0, NULL) || setresgid(c->uid, c->uid, c->uid) ||
				 setresuid(c->uid, euid, euid)))
		die("setresuid");
	if (inh) {
		/* an euid 0 keeps its full sets, a real uid 0 its permitted set;
		 * others keep only what pA needs */
		if (capset_sets(euid ? 0 : all, c->uid && euid ? c->pa : all, inh))
			die("capset");
		for (int b = 0; b < 64; b++)
			if ((c->pa >> b) & 1 &&
			    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, b, 0, 0))
				die("PR_CAP_AMBIENT_RAISE");
	}
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

/* fork(), or with @share a child that shares our fs_struct (CLONE_FS): as
 * long as we live, its exec is LSM_UNSAFE_SHARE. */
static pid_t fork_fs(int share)
{
	if (!share)
		return fork();
	return syscall(SYS_clone, CLONE_FS | SIGCHLD, NULL, NULL, NULL, NULL);
}

/* Wait for @pid to end, letting a tracee's stops pass; then end too. */
static void wait_and_exit(pid_t pid, int tracer)
{
	int status;

	while (waitpid(pid, &status, 0) == pid && WIFSTOPPED(status)) {
		int sig = WSTOPSIG(status) == SIGTRAP ? 0 : WSTOPSIG(status);

		if (tracer)
			ptrace(PTRACE_DETACH, pid, NULL, (void *)(long)sig);
	}
	_exit(0);
}

/* Exec from a process with its own fs_struct, or from a CLONE_FS child. */
static void exec_maybe_shared(const struct creds *c, char *const argv[])
{
	pid_t pid;

	if (!c->shared_fs)
		exec_or_report(argv);
	pid = fork_fs(1);
	if (pid < 0)
		die("clone(CLONE_FS)");
	if (pid == 0)
		exec_or_report(argv);
	wait_and_exit(pid, 0);
}

/*
 * The tracer lacks CAP_SYS_PTRACE, so the kernel treats the exec as unsafe.
 * With PTRACE_TRACEME the kernel takes the tracer's credentials from the
 * tracee when it asks (ptrace_link), so both are @c here: callers keep
 * CAP_SYS_PTRACE out of @c's effective set (a uid other than 0).
 */
static void exec_traced(const struct creds *c, char *const argv[])
{
	pid_t pid = fork_fs(c->shared_fs);

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			die("PTRACE_TRACEME");
		exec_or_report(argv);
	}
	wait_and_exit(pid, 1);
}

/* A root tracer holding CAP_SYS_PTRACE attaches (PTRACE_SEIZE: no stop at
 * exec) to a tracee that has taken @c; its exec is then not downgraded. */
static void exec_traced_by_root(const struct creds *c, char *const argv[])
{
	int ready[2], go[2];
	char b = 0;
	pid_t pid;

	if (pipe(ready) || pipe(go))
		die("pipe");
	pid = fork_fs(c->shared_fs);
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		become(c);
		if (write(ready[1], &b, 1) != 1 || read(go[0], &b, 1) != 1)
			die("tracee sync");
		exec_or_report(argv);
	}
	if (read(ready[0], &b, 1) != 1)
		die("tracer sync");
	if (ptrace(PTRACE_SEIZE, pid, NULL, NULL))
		printf("seize_errno=%d\n", errno);	/* the exec goes on untraced */
	fflush(stdout);
	if (write(go[1], &b, 1) != 1)
		die("tracer sync");
	wait_and_exit(pid, 1);
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
		if ((c->newpgrp && setpgid(0, 0)) || (c->pgrp && setpgid(0, c->pgrp)))
			die("setpgid");
		if (c->traced && c->tracer_cap)
			exec_traced_by_root(c, argv);
		become(c);
		if (c->traced)
			exec_traced(c, argv);
		exec_maybe_shared(c, argv);
	}
	close(p[1]);
	*out = p[0];
	return pid;
}

void actor_by_ambient(struct actor *a, const char *plain, __u64 fe, __u64 fp)
{
	a->file = plain;
	a->c.pa = fp;
	if (!a->c.uid)
		a->c.securebits |= SECBIT_NOROOT;
	if (fe != fp) {
		a->set_eff = 1;
		a->eff = fe;
	}
}

/* @a's argv: file, its options in the order they apply, then @cmd...
 * (NULL-terminated). The effective set an exec would have left comes
 * first (unshare then gives the same full sets in both runs), emptying pE
 * as a choice comes last. */
struct argv_buf {
	char *v[40];
	char eff[24];
};

static char *const *actor_argv(const struct actor *a, struct argv_buf *b,
			       const char *const *cmd)
{
	int n = 0;

	b->v[n++] = (char *)a->file;
	if (a->set_eff) {
		snprintf(b->eff, sizeof(b->eff), "%llx", (unsigned long long)a->eff);
		b->v[n++] = "--eff";
		b->v[n++] = b->eff;
	}
	if (a->setsid)
		b->v[n++] = "--setsid";
	if (a->userns)
		b->v[n++] = "--userns";
	if (a->userns_nested) {
		b->v[n++] = "--userns-nested";
		b->v[n++] = "1000";
	}
	if (a->pp_only) {
		b->v[n++] = "--eff";
		b->v[n++] = "0";
	}
	for (const char *const *w = a->chain; w && *w && n < 32; w++)
		b->v[n++] = (char *)*w;
	while (*cmd && n < 39)
		b->v[n++] = (char *)*cmd++;
	b->v[n] = NULL;
	return b->v;
}

/* SIGKILL @pid (our child) and return how it ended. */
static int reap_status(pid_t pid)
{
	int status = 0;

	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return status;
}

/*
 * Whether a process that ended with @status was ended by @sig. A fatal
 * signal sets the group's exit code when it is sent (complete_signal), so
 * a SIGKILL sent later does not hide it: no waiting needed.
 */
static int killed_by(int status, int sig)
{
	return sig > 0 && WIFSIGNALED(status) && WTERMSIG(status) == sig;
}

static void start_target(const struct actor *a, pid_t *pid, int *fd, char *status,
			 size_t len)
{
	struct argv_buf b;

	*pid = spawn(&a->c, actor_argv(a, &b, (const char *const[]){ "pause", NULL }), fd);
	snprintf(status, len, "%s", read_output(*fd, 0));	/* it has exec'd */
}

void run_pair_spec(const struct pair_spec *s, struct pair_out *o)
{
	char pid[16], arg[16];
	const char *cmd[] = { "--status", s->op ? "sched" : "kill", pid, arg, NULL };
	const char *result;
	struct argv_buf b;
	int tfd, mfd = -1, sfd;

	memset(o, 0, sizeof(*o));
	o->target_alive = o->member_alive = -1;
	start_target(&s->target, &o->target, &tfd, o->target_status,
		     sizeof(o->target_status));
	if (s->group) {
		struct actor m = s->member;

		m.c.pgrp = o->target;
		start_target(&m, &o->member, &mfd, o->member_status,
			     sizeof(o->member_status));
	}
	snprintf(pid, sizeof(pid), "%d", s->group ? -o->target : o->target);
	if (s->op)
		snprintf(arg, sizeof(arg), "%s", s->op);
	else
		snprintf(arg, sizeof(arg), "%d", s->sig);
	o->sender = spawn(&s->sender.c, actor_argv(&s->sender, &b, cmd), &sfd);
	snprintf(o->sender_out, sizeof(o->sender_out), "%s", read_output(sfd, 1));
	close(sfd);
	waitpid(o->sender, NULL, 0);
	result = field_at(o->sender_out, s->op ? "sched" : "kill");
	o->ret = result && field(result, s->op ? "sched" : "kill") == 0 ? 0 : -1;
	/* the call's own errno, not a chain step's before it */
	o->err = o->ret && result ? (int)field(result, "errno") : 0;
	if (s->group) {
		o->target_alive = !killed_by(reap_status(o->target), s->sig);
		o->member_alive = !killed_by(reap_status(o->member), s->sig);
		close(mfd);
	} else if (s->op && !strcmp(s->op, "sigio")) {
		/* the write succeeds either way: delivery is the decision */
		o->target_alive = !killed_by(reap_status(o->target), SIGIO);
	} else {
		reap(o->target);
	}
	close(tfd);
}

const char *run_thread_event(const struct actor *a, int sig, int drop, pid_t *pid)
{
	char s[16];
	const char *cmd[] = { "--status", "thread", s, drop ? "drop" : "keep", NULL };
	struct argv_buf b;

	snprintf(s, sizeof(s), "%d", sig);
	return run_to_end(&a->c, actor_argv(a, &b, cmd), pid);
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

/* where "@key=" starts in @line, or NULL */
const char *field_at(const char *line, const char *key)
{
	size_t k = strlen(key);

	for (const char *s = line; (s = strstr(s, key)); s += k)
		if ((s == line || s[-1] == ' ' || s[-1] == '\n') && s[k] == '=')
			return s;
	return NULL;
}

int has_field(const char *line, const char *key)
{
	return field_at(line, key) != NULL;
}

unsigned long long field(const char *line, const char *key)
{
	const char *s = field_at(line, key);

	return s ? strtoull(s + strlen(key) + 1, NULL, 0) : ~0ULL;
}

void reap(pid_t pid)
{
	reap_status(pid);
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
	return find_decision_to(hook, pid, 0, out);
}

int find_decision_to(__u32 hook, __u32 pid, __u32 target, struct fcaps_decision *out)
{
	struct fcaps_decision d;
	struct ring r;
	int found = -1;

	if (ring_open(FCAPS_PIN_DIR "/decisions", &r))
		return -1;
	for (__u32 i = 0; i < FCAPS_MAX_DECISIONS; i++)
		if (ring_read(&r, i, &d) && d.hook == hook && d.pid == pid &&
		    (!target || d.target == target) && (found || d.seq > out->seq)) {
			*out = d;
			found = 0;
		}
	ring_close(&r);
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
	rc = rc || fcaps_config_store(fd, &cfg);
	close(fd);
	return rc ? -1 : 0;
}
