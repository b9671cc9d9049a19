// SPDX-License-Identifier: GPL-2.0
/*
 * fcaps_stress (issue #12): a fixed-time stress of both enforcement paths,
 * then an exact account of what the BPF and kernel records say about it.
 *
 *   fcaps_stress run DIR SECONDS LOG [SEED [BUDGET]]
 *	Files DIR/r0 r1 (values rewritten), e0 e1 (policy entries deleted and
 *	re-added), u0 (no value): copies of fcaps_probe that stress.sh made.
 *	Sleepers (fcaps_probe pause from some of them) are signal targets;
 *	actors of several uids and capability sets exec the files, kill(0 or
 *	SIGCONT) and setpriority() each other and the sleepers; a rewriter
 *	switches r0/r1 between known legacy values (as root); an editor runs
 *	'fcapsctl policy del/add' on e0/e1 and 'fcapsctl mode'. Everything
 *	is logged to LOG, one line a call. Stops after SECONDS, or once
 *	BUDGET events have been started (default: what fits the decisions
 *	map with room to spare, and no more forks than pids are left), so
 *	that no record is lost and no pid reused.
 *   fcapsctl decisions --json | fcaps_stress check LOG STATUS.json
 *	Joins the records with LOG; PASS/FAIL lines, "N passed, N failed".
 *
 * LOG lines (times: CLOCK_MONOTONIC ns, taken before and after the call):
 *   F file kdev ino value		a file and its value at the start
 *   A|T index pid uid pp pe		an actor, a sleeper
 *   E actor child file t0 t1 exit	an exec (exit 100 + errno: it failed)
 *   K actor target sig hook rc errno	kill(); hook: it passes 6.1's checks
 *   N actor target hook rc errno	setpriority(), likewise
 *   X file value t0 t1 rc errno	a value written (0: removed)
 *   P file t0 t1 rc_del rc_add		fcapsctl policy del, then add
 *   M enforce t0 t1 rc			fcapsctl mode
 *   D ms events budget budget_hit	the end
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/types.h>
#include "fcaps.h"
#include "tap.h"

#define FCAPSCTL	"/usr/local/bin/fcapsctl"
#define NICE		5	/* every setpriority() sets this: never lower
				 * than the target's nice, so never EACCES */
#define BIT(c)		(1ULL << (c))
#define NR		BIT(CAP_NET_RAW)
#define KILLC		BIT(CAP_KILL)

/* ---- the known values, files and processes ---- */

static const struct value {
	const char *text;	/* for fcapsctl policy add; "none": no value */
	__u32 tag;
	__u64 e, p, i;
} values[] = {
	{ "none", 0, 0, 0, 0 },
	{ "v1 cap_net_raw+ep", FCAPS_V1_TAG, NR, NR, 0 },
	{ "v1 cap_kill+ep", FCAPS_V1_TAG, KILLC, KILLC, 0 },
	{ "v3 cap_net_raw+p", FCAPS_V3_TAG, 0, NR, 0 },
	{ "v1 cap_kill,cap_net_raw+ep", FCAPS_V1_TAG, KILLC | NR, KILLC | NR, 0 },
};
#define NVALUES		5
#define NREWRITE	4	/* the rewriter uses values 0-3 */

enum kind { REWRITTEN, EDITED, PLAIN };
static const struct file {
	const char *name;
	enum kind kind;
} files[] = {
	{ "r0", REWRITTEN }, { "r1", REWRITTEN }, { "e0", EDITED }, { "e1", EDITED },
	{ "u0", PLAIN },
};
#define NFILES		5

/* actors: who sends; caps is pP = pE (root: all of them when 0) */
static const struct { uid_t uid; __u64 caps; } actor_specs[] = {
	{ 0, 0 }, { 0, 0 }, { 0, NR }, { 1000, 0 }, { 1000, 0 },
	{ 1000, KILLC | NR }, { 1000, BIT(CAP_SYS_NICE) },
};
#define NACTORS		7
/* sleepers: fcaps_probe pause from a file, as a uid; signal targets only */
static const struct { uid_t uid; int file; } sleeper_specs[] = {
	{ 0, 0 }, { 1000, 1 }, { 1000, 4 }, { 0, 3 },
};
#define NSLEEPERS	4
#define NTARGETS	(NACTORS + NSLEEPERS)

struct target {
	pid_t pid, sid;
	uid_t uid;
	__u64 pp, pe;
};

/* shared by every process of a run */
static struct shared {
	volatile int go, stop, ready;
	long events, budget;
	struct target t[NTARGETS];	/* actors first */
} *sh;

static char dir[256];
static int logfd;

static void die(const char *what)
{
	fprintf(stderr, "fcaps_stress: %s: %s\n", what, strerror(errno));
	exit(2);
}

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* one write(2) a line: O_APPEND keeps every process's lines whole */
static void logline(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logline(const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (write(logfd, buf, n) != n)
		die("writing the log");
}

static __u64 rnd(__u64 *s)	/* xorshift64* */
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

/* another event may start: counted against the decisions map's room */
static int may_start(void)
{
	if (sh->stop)
		return 0;
	if (__atomic_fetch_add(&sh->events, 1, __ATOMIC_SEQ_CST) < sh->budget)
		return 1;
	sh->stop = 1;
	return 0;
}

static const char *path_of(int f)
{
	static char p[NFILES][300];

	snprintf(p[f], sizeof(p[f]), "%s/%s", dir, files[f].name);
	return p[f];
}

static int caps_get(__u64 *pp, __u64 *pe)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &hdr, d))
		return -1;
	*pp = d[0].permitted | (__u64)d[1].permitted << 32;
	*pe = d[0].effective | (__u64)d[1].effective << 32;
	return 0;
}

static int caps_set(__u64 e, __u64 p)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = {
		{ (__u32)e, (__u32)p, 0 }, { (__u32)(e >> 32), (__u32)(p >> 32), 0 },
	};

	return syscall(SYS_capset, &hdr, d);
}

/* From root with every capability: become @uid holding @caps (0 for root:
 * keep them all) as both pP and pE; pI and pA stay empty. */
static void become(uid_t uid, __u64 caps)
{
	if (uid && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0))
		die("PR_SET_KEEPCAPS");
	if (uid && (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
		    setresuid(uid, uid, uid)))
		die("setresuid");
	if ((uid || caps) && caps_set(caps, caps))
		die("capset");
}

/* ---- run ---- */

static pid_t spawn_sleeper(int k)
{
	char line[512], *p;
	int pfd[2];
	ssize_t n;
	pid_t pid;
	struct target *t = &sh->t[NACTORS + k];

	if (pipe(pfd))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		become(sleeper_specs[k].uid, 0);
		dup2(pfd[1], 1);
		execl(path_of(sleeper_specs[k].file), "sleeper", "pause", (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	n = read(pfd[0], line, sizeof(line) - 1);	/* its status line: it is up */
	close(pfd[0]);
	line[n > 0 ? n : 0] = 0;
	t->pid = pid;
	t->uid = sleeper_specs[k].uid;
	t->pp = (p = strstr(line, "Prm=")) ? strtoull(p + 4, NULL, 16) : ~0ULL;
	t->pe = (p = strstr(line, "Eff=")) ? strtoull(p + 4, NULL, 16) : ~0ULL;
	t->sid = getsid(pid);
	if (t->pp == ~0ULL) {
		fprintf(stderr, "fcaps_stress: sleeper %d said '%s'\n", k, line);
		exit(2);
	}
	logline("T %d %d %u %llx %llx %d\n", k, pid, t->uid, (unsigned long long)t->pp,
	     (unsigned long long)t->pe, sleeper_specs[k].file);
	return pid;
}

/* Would 6.1's check_kill_permission() pass this to security_task_kill()?
 * kill_ok_by_cred() (uids, or CAP_KILL), or SIGCONT within the session. */
static int kill_reaches_hook(const struct target *me, const struct target *t, int sig)
{
	return t->uid == me->uid || (me->pe & KILLC) ||
	       (sig == SIGCONT && t->sid == me->sid);
}

/* set_one_prio(): the target's uid or euid is our euid, or CAP_SYS_NICE */
static int nice_reaches_hook(const struct target *me, const struct target *t)
{
	return t->uid == me->uid || (me->pe & BIT(CAP_SYS_NICE));
}

static void actor(int k, __u64 seed)
{
	struct target *me = &sh->t[k];
	int devnull = open("/dev/null", O_WRONLY);

	become(actor_specs[k].uid, actor_specs[k].caps);
	me->uid = actor_specs[k].uid;
	me->sid = getsid(0);
	if (caps_get(&me->pp, &me->pe))
		die("capget");
	__atomic_fetch_add(&sh->ready, 1, __ATOMIC_SEQ_CST);
	while (!sh->go)
		usleep(1000);
	while (may_start()) {
		__u64 r = rnd(&seed) % 10;
		const struct target *t = &sh->t[rnd(&seed) % NTARGETS];

		if (r < 4) {		/* exec a file, capped or not */
			int f = rnd(&seed) % NFILES, status;
			__u64 t0 = now_ns(), t1;
			pid_t pid = fork();

			if (pid == 0) {
				dup2(devnull, 1);
				execl(path_of(f), files[f].name, "status", (char *)NULL);
				_exit(100 + (errno & 127));	/* exec failed: 100 + errno */
			}
			if (pid < 0 || waitpid(pid, &status, 0) != pid)
				die("fork/waitpid");
			t1 = now_ns();
			logline("E %d %d %d %llu %llu %d\n", me->pid, pid, f,
				(unsigned long long)t0, (unsigned long long)t1,
				WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
		} else if (r < 7) {	/* signal 0 or SIGCONT */
			int sig = rnd(&seed) % 2 ? SIGCONT : 0;
			int rc = kill(t->pid, sig), err = rc ? errno : 0;

			logline("K %d %d %d %d %d %d\n", me->pid, t->pid, sig,
			     kill_reaches_hook(me, t, sig), rc, err);
		} else {		/* renice */
			int rc = setpriority(PRIO_PROCESS, t->pid, NICE), err = rc ? errno : 0;

			logline("N %d %d %d %d %d\n", me->pid, t->pid,
			     nice_reaches_hook(me, t), rc, err);
		}
	}
	exit(0);
}

static int encode(int v, __u8 *buf)
{
	struct fcaps_sets s = { values[v].e, values[v].p, values[v].i };

	return fcaps_encode(&s, values[v].tag, buf);
}

/* As root: switch r0/r1 between the known values, never to the same one */
static void rewriter(__u64 seed, const int *initial)
{
	int cur[NFILES];

	memcpy(cur, initial, sizeof(cur));
	while (!sh->stop) {
		int f = rnd(&seed) % 2, v = (cur[f] + 1 + rnd(&seed) % (NREWRITE - 1)) % NREWRITE;
		__u8 buf[FCAPS_MAX_SIZE];
		__u64 t0 = now_ns(), t1;
		int rc = v ? setxattr(path_of(f), FCAPS_XATTR_NAME, buf, encode(v, buf), 0) :
			     removexattr(path_of(f), FCAPS_XATTR_NAME);
		int err = rc ? errno : 0;

		t1 = now_ns();
		logline("X %d %d %llu %llu %d %d\n", f, v, (unsigned long long)t0,
		     (unsigned long long)t1, rc, err);
		if (!rc)
			cur[f] = v;
		usleep(5000);
	}
	exit(0);
}

/* fcapsctl ARGS..., its stdout dropped; its exec is one more event */
static int fcapsctl(const char *a1, const char *a2, const char *a3, const char *a4)
{
	int status;
	pid_t pid;

	__atomic_fetch_add(&sh->events, 1, __ATOMIC_SEQ_CST);
	pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		dup2(fd, 1);
		execl(FCAPSCTL, "fcapsctl", a1, a2, a3, a4, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		die("fork/waitpid fcapsctl");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void flip_mode(int *enforce)
{
	__u64 t0 = now_ns();
	int rc;

	*enforce = !*enforce;
	rc = fcapsctl("mode", *enforce ? "enforce" : "shadow", NULL, NULL);
	logline("M %d %llu %llu %d\n", *enforce, (unsigned long long)t0,
		(unsigned long long)now_ns(), rc);
}

/* 'policy del' then 'policy add' of e0/e1's own value (so the map is true
 * again after each pair); 'mode' flipped every third pair; shadow at the end */
static void editor(const int *initial)
{
	int enforce = 0;

	for (int n = 1; !sh->stop; n++) {
		int f = 2 + n % 2, rd, ra;
		__u64 t0 = now_ns();

		rd = fcapsctl("policy", "del", path_of(f), NULL);
		ra = fcapsctl("policy", "add", path_of(f), values[initial[f]].text);
		logline("P %d %llu %llu %d %d\n", f, (unsigned long long)t0,
			(unsigned long long)now_ns(), rd, ra);
		if (n % 3 == 0)
			flip_mode(&enforce);
		usleep(20000);
	}
	if (enforce)
		flip_mode(&enforce);
	exit(0);
}

/* The value a file holds now: an index into values[], or -1 */
static int value_of(int f)
{
	__u8 buf[64], want[FCAPS_MAX_SIZE];
	ssize_t n = getxattr(path_of(f), FCAPS_XATTR_NAME, buf, sizeof(buf));

	if (n < 0)
		return errno == ENODATA ? 0 : -1;
	for (int v = 1; v < NVALUES; v++)
		if (encode(v, want) == n && !memcmp(buf, want, n))
			return v;
	return -1;
}

/* pids not yet handed out before pid_max wraps (at most 32768 here:
 * CONFIG_BASE_SMALL) */
static long pids_left(void)
{
	FILE *f = fopen("/proc/sys/kernel/pid_max", "r");
	long max = 32768;

	if (f) {
		if (fscanf(f, "%ld", &max) != 1)
			max = 32768;
		fclose(f);
	}
	return max - getpid();
}

static int cmd_run(int argc, char **argv)
{
	pid_t pids[NACTORS + 2];
	int initial[NFILES];
	__u64 seed, start;
	long events;

	if (argc < 5)
		return fprintf(stderr, "usage: fcaps_stress run DIR SECONDS LOG [SEED [BUDGET]]\n"), 2;
	snprintf(dir, sizeof(dir), "%s", argv[2]);
	seed = argc > 5 ? strtoull(argv[5], NULL, 0) : 1;
	logfd = open(argv[4], O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (logfd < 0 || sh == MAP_FAILED)
		die("log or shared memory");
	/* room for the boot's, the script's and the editor's own records; and
	 * as records are joined by pid, no more forks than pids left unused */
	sh->budget = argc > 6 ? atol(argv[6]) : FCAPS_MAX_DECISIONS - 6000;
	if (sh->budget > pids_left() - 1000)
		sh->budget = pids_left() - 1000;
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* the nice every renice sets, for all from the start: an even share */
	if (setpriority(PRIO_PROCESS, 0, NICE))
		die("setpriority");

	for (int f = 0; f < NFILES; f++) {
		struct stat st;

		initial[f] = value_of(f);
		if (stat(path_of(f), &st) || initial[f] < 0 ||
		    (files[f].kind == REWRITTEN && initial[f] >= NREWRITE) ||
		    (files[f].kind == EDITED && !initial[f]) ||
		    (files[f].kind == PLAIN && initial[f]))
			return fprintf(stderr, "fcaps_stress: %s missing or not set up "
				       "as stress.sh does\n", path_of(f)), 2;
		logline("F %d %u %llu %d\n", f, (major(st.st_dev) << 20) | minor(st.st_dev),
		     (unsigned long long)st.st_ino, initial[f]);
	}
	for (int k = 0; k < NSLEEPERS; k++)
		spawn_sleeper(k);
	for (int k = 0; k < NACTORS; k++) {
		pids[k] = sh->t[k].pid = fork();
		if (pids[k] < 0)
			die("fork");
		if (pids[k] == 0) {
			sh->t[k].pid = getpid();
			actor(k, seed * 1000003 + k + 1);
		}
	}
	while (sh->ready < NACTORS)
		usleep(1000);
	for (int k = 0; k < NACTORS; k++)
		logline("A %d %d %u %llx %llx\n", k, sh->t[k].pid, sh->t[k].uid,
		     (unsigned long long)sh->t[k].pp, (unsigned long long)sh->t[k].pe);
	start = now_ns();
	sh->go = 1;
	if ((pids[NACTORS] = fork()) == 0)
		rewriter(seed * 7919, initial);
	if ((pids[NACTORS + 1] = fork()) == 0)
		editor(initial);
	while (!sh->stop && now_ns() - start < strtoull(argv[3], NULL, 0) * 1000000000ULL)
		usleep(100000);
	sh->stop = 1;
	for (int k = 0; k < NACTORS + 2; k++)
		waitpid(pids[k], NULL, 0);
	for (int k = 0; k < NSLEEPERS; k++) {
		kill(sh->t[NACTORS + k].pid, SIGKILL);
		waitpid(sh->t[NACTORS + k].pid, NULL, 0);
	}
	events = sh->events > sh->budget ? sh->budget : sh->events;
	logline("D %llu %ld %ld %d\n", (unsigned long long)(now_ns() - start) / 1000000,
	     events, sh->budget, sh->events >= sh->budget);
	printf("fcaps_stress: ran %.1f s, %ld events started%s\n",
	       (now_ns() - start) / 1e9, events,
	       sh->events >= sh->budget ? " (stopped early: the decisions map's budget)" : "");
	return 0;
}

/* ---- check ---- */

struct rec {
	__u64 seq, ino, fe, fp, fi, pe, pp, pi, pa, bset, target_pp;
	__s64 ret, sig;
	__u64 hook, pid, target, legacy, tag, dev, uid, secureexec,
	      same_userns, cap_in_target_ns, explicit_cred;
	int kernel;
};

#define FIELD(n) { #n, offsetof(struct rec, n) }
static const struct { const char *name; size_t off; } rec_fields[] = {
	FIELD(seq), FIELD(ino), FIELD(fe), FIELD(fp), FIELD(fi), FIELD(pe), FIELD(pp),
	FIELD(pi), FIELD(pa), FIELD(bset), FIELD(target_pp), FIELD(ret), FIELD(sig),
	FIELD(pid), FIELD(target), FIELD(legacy), FIELD(tag), FIELD(dev), FIELD(uid),
	FIELD(secureexec), FIELD(same_userns), FIELD(cap_in_target_ns),
	FIELD(explicit_cred),
};
static const char *hook_names[FCAPS_NHOOKS] = {
	"exec", "kill", "setscheduler", "setnice", "setioprio", "xattr", "xattr_guard",
};

/* One line of 'fcapsctl decisions --json': flat, integers and two strings */
static int parse_rec(char *line, struct rec *r)
{
	char *p = line;

	memset(r, 0, sizeof(*r));
	r->hook = ~0ULL;
	while ((p = strchr(p, '"'))) {
		char *key = p + 1, *end = strchr(key, '"');

		if (!end || end[1] != ':')
			return -1;
		*end = 0;
		p = end + 2;
		if (*p == '"') {
			char *val = p + 1;

			if (!(end = strchr(val, '"')))
				return -1;
			*end = 0;
			p = end + 1;
			if (!strcmp(key, "map"))
				r->kernel = !strcmp(val, "kdecisions");
			for (int h = 0; !strcmp(key, "hook") && h < FCAPS_NHOOKS; h++)
				if (!strcmp(val, hook_names[h]))
					r->hook = h;
			continue;
		}
		for (size_t i = 0; i < sizeof(rec_fields) / sizeof(rec_fields[0]); i++) {
			if (strcmp(key, rec_fields[i].name))
				continue;
			*(__u64 *)((char *)r + rec_fields[i].off) =
				*p == '-' ? (__u64)strtoll(p, NULL, 10) : strtoull(p, NULL, 10);
		}
	}
	return r->hook == ~0ULL ? -1 : 0;
}

/* the workload, from the log */
struct ev {
	char type;
	int actor, child, file, sig, reach, rc, err, status, value;
	pid_t target;
	__u64 t0, t1;
	struct rec *bpf, *kern;
};

static struct ev *evs;
static size_t nevs;
static struct target tg[NTARGETS];
static struct { __u32 dev; __u64 ino; int initial; } fl[NFILES];

/* print at most a few examples of a failed check */
static int shown;
static void detail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void detail(const char *fmt, ...)
{
	va_list ap;

	if (shown++ >= 8)
		return;
	printf("  | ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static void show_rec(const char *what, const struct rec *r)
{
	if (!r) {
		detail("%s: none", what);
		return;
	}
	detail("%s: seq=%llu hook=%s pid=%llu target=%llu sig=%lld ret=%lld legacy=%llu "
	       "tag=%#llx fe=%#llx fp=%#llx fi=%#llx uid=%llu pp=%#llx pe=%#llx pi=%#llx "
	       "pa=%#llx bset=%#llx secureexec=%llu target_pp=%#llx same_userns=%llu "
	       "cap_in_target_ns=%llu", what, (unsigned long long)r->seq,
	       hook_names[r->hook], (unsigned long long)r->pid, (unsigned long long)r->target,
	       (long long)r->sig, (long long)r->ret, (unsigned long long)r->legacy,
	       (unsigned long long)r->tag, (unsigned long long)r->fe, (unsigned long long)r->fp,
	       (unsigned long long)r->fi, (unsigned long long)r->uid, (unsigned long long)r->pp,
	       (unsigned long long)r->pe, (unsigned long long)r->pi, (unsigned long long)r->pa,
	       (unsigned long long)r->bset, (unsigned long long)r->secureexec,
	       (unsigned long long)r->target_pp, (unsigned long long)r->same_userns,
	       (unsigned long long)r->cap_in_target_ns);
}

static int by_seq(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	return (x->seq > y->seq) - (x->seq < y->seq);
}

struct child {
	pid_t pid;
	struct ev *e;
};

static int by_pid(const void *a, const void *b)
{
	const struct child *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

static int find_target(pid_t pid)
{
	for (int k = 0; k < NTARGETS; k++)
		if (tg[k].pid == pid)
			return k;
	return -1;
}

/* Which known value an exec record carries: index, or -1 */
static int value_in(const struct rec *r)
{
	if (!r->legacy)
		return r->tag || r->fe || r->fp || r->fi ? -1 : 0;
	for (int v = 1; v < NVALUES; v++)
		if (r->tag == values[v].tag && r->fe == values[v].e &&
		    r->fp == values[v].p && r->fi == values[v].i)
			return v;
	return -1;
}

/* SEMANTICS 2 for the workers' execs: no setid file, no unsafe exec, no pA;
 * 0 if the record's new credentials are what the rules give */
static int exec_rule_ok(const struct rec *r, uid_t uid)
{
	__u64 pp;

	if (r->ret || r->uid != uid || r->pa)
		return 0;
	if (r->legacy) {
		pp = (r->fp & r->bset) | (r->fi & r->pi);
		return r->pp == pp && r->pe == (pp & r->fe) &&
		       r->secureexec == (uid && (r->fe | r->fp | r->fi));
	}
	/* 6.1 without a value: root gets bset | pI, others pA (empty) */
	pp = uid ? 0 : r->bset | r->pi;
	return r->pp == pp && r->pe == pp && !r->secureexec;
}

/* Per file, its rewrites ('X') and policy del..add pairs ('P'), in time
 * order (one rewriter, one editor, each sequential) */
static struct ev **changes[NFILES];
static size_t nchanges[NFILES];

/* Values file @f may have shown during [t0, t1], to BPF (the policy map)
 * or to the kernel (the attribute): a bit per values[] index */
static unsigned int possible(int f, __u64 t0, __u64 t1, int for_bpf)
{
	unsigned int cur = 1u << fl[f].initial, maybe = 0;
	size_t lo = 0, hi = nchanges[f];

	/* the first change not over before the exec began */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (changes[f][mid]->t1 < t0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0;) {
		if (changes[f][i]->type == 'X' && !changes[f][i]->rc) {
			cur = 1u << changes[f][i]->value;
			break;
		}
	}
	for (size_t i = lo; i < nchanges[f] && changes[f][i]->t0 <= t1; i++) {
		const struct ev *e = changes[f][i];

		if (e->type == 'X' && !e->rc)
			maybe |= 1u << e->value;
		else if (e->type == 'P' && for_bpf)
			maybe |= 1u;	/* no entry between 'policy del' and 'add' */
	}
	return cur | maybe;
}

static int read_log(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512];
	size_t cap = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		struct ev e = { .type = line[0], .file = -1, .actor = -1 };
		unsigned long long t0 = 0, t1 = 0, a, b;
		unsigned int u;
		int k, n = 0;

		switch (line[0]) {
		case 'F':
			n = sscanf(line, "F %d %u %llu %d", &k, &u, &a, &e.value) == 4;
			if (n && k >= 0 && k < NFILES) {
				fl[k].dev = u;
				fl[k].ino = a;
				fl[k].initial = e.value;
			}
			continue;
		case 'A':
		case 'T':
			n = sscanf(line + 2, "%d %d %u %llx %llx", &k, &e.target, &u, &a, &b) == 5;
			k += line[0] == 'T' ? NACTORS : 0;
			if (n && k >= 0 && k < NTARGETS)
				tg[k] = (struct target){ e.target, 0, u, a, b };
			continue;
		case 'E':
			n = sscanf(line, "E %d %d %d %llu %llu %d", &e.actor, &e.child, &e.file,
				   &t0, &t1, &e.status) == 6;
			break;
		case 'K':
			n = sscanf(line, "K %d %d %d %d %d %d", &e.actor, &e.target, &e.sig,
				   &e.reach, &e.rc, &e.err) == 6;
			break;
		case 'N':
			n = sscanf(line, "N %d %d %d %d %d", &e.actor, &e.target, &e.reach,
				   &e.rc, &e.err) == 5;
			break;
		case 'X':
			n = sscanf(line, "X %d %d %llu %llu %d %d", &e.file, &e.value, &t0, &t1,
				   &e.rc, &e.err) == 6;
			break;
		case 'P':
			n = sscanf(line, "P %d %llu %llu %d %d", &e.file, &t0, &t1, &e.rc,
				   &e.err) == 5;
			break;
		case 'M':
			n = sscanf(line, "M %d %llu %llu %d", &e.value, &t0, &t1, &e.rc) == 4;
			break;
		case 'D':
			if (sscanf(line, "D %llu %llu %llu %d", &t0, &a, &b, &k) == 4)
				printf("run: %.1f s, %llu events started (budget %llu%s)\n", t0 / 1e3,
				       a, b, k ? ", reached: stopped early" : "");
			continue;
		}
		if (!n) {
			fprintf(stderr, "fcaps_stress check: bad log line: %s", line);
			return -1;
		}
		e.t0 = t0;
		e.t1 = t1;
		if (nevs == cap) {
			cap = cap ? cap * 2 : 4096;
			evs = realloc(evs, cap * sizeof(*evs));
			if (!evs)
				die("realloc");
		}
		evs[nevs++] = e;
	}
	fclose(f);
	return 0;
}

/* status --json: counters.<hook>.{seen,errors} and maps.decisions */
static int read_status(const char *path, __u64 *seen, __u64 *errors, long *fill, long *kfill)
{
	static char buf[1 << 16];
	FILE *f = fopen(path, "r");
	size_t n;
	char key[64], *p;

	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	p = strstr(buf, "\"maps\":{");
	if (!p || !(p = strstr(p, "\"decisions\":")) || sscanf(p, "\"decisions\":%ld", fill) != 1 ||
	    !(p = strstr(p, "\"kdecisions\":")) || sscanf(p, "\"kdecisions\":%ld", kfill) != 1)
		return -1;
	for (int h = 0; h < FCAPS_NHOOKS; h++) {
		unsigned long long s, a, d, e;

		snprintf(key, sizeof(key), "\"%s\":{", hook_names[h]);
		p = strstr(strstr(buf, "\"counters\":{") ?: buf, key);
		if (!p || sscanf(p + strlen(key), "\"seen\":%llu,\"allowed\":%llu,\"denied\":%llu,"
				 "\"errors\":%llu", &s, &a, &d, &e) != 4)
			return -1;
		seen[h] = s;
		errors[h] = e;
	}
	return 0;
}

/* The records: BPF's (recs[0..nb)) and the kernel's (krecs[0..nk)), by seq */
static struct rec *recs, *krecs;
static size_t nb, nk;

static void read_records(FILE *in)
{
	size_t n = 0, cap = 0, linecap = 0;
	char *line = NULL;

	while (getline(&line, &linecap, in) > 0) {
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			if (!(recs = realloc(recs, cap * sizeof(*recs))))
				die("realloc");
		}
		if (!parse_rec(line, &recs[n]))
			n++;
	}
	free(line);
	/* kernel records to the end */
	for (size_t i = 0, j = n; i < j;) {
		if (recs[i].kernel) {
			struct rec t = recs[i];

			recs[i] = recs[--j];
			recs[j] = t;
			nk++;
		} else {
			i++;
		}
	}
	nb = n - nk;
	krecs = recs + nb;
	qsort(recs, nb, sizeof(*recs), by_seq);
	qsort(krecs, nk, sizeof(*recs), by_seq);
}

/* per hook: the workload's calls that reach it, that do not, its records */
static long calls[FCAPS_NHOOKS], nohook[FCAPS_NHOOKS], got[FCAPS_NHOOKS];
static long n_exec, n_kill, n_nice, n_rw, rw_ok, n_edit, n_flip;

/* The workload's own account, and whether each call went as it must */
static void account(void)
{
	long bad = 0;

	for (size_t i = 0; i < nevs; i++) {
		struct ev *e = &evs[i];
		int h = e->type == 'K' ? FCAPS_HOOK_KILL : FCAPS_HOOK_SETNICE;

		switch (e->type) {
		case 'E':
			n_exec++;
			calls[FCAPS_HOOK_EXEC]++;
			bad += e->status != 0;
			break;
		case 'K':
		case 'N':
			e->type == 'K' ? n_kill++ : n_nice++;
			e->reach ? calls[h]++ : nohook[h]++;
			/* no ESRCH (targets outlive the run); before the hook, EPERM */
			bad += (e->rc && e->err != EPERM) || (!e->reach && !e->rc);
			break;
		case 'X':
			n_rw++;
			rw_ok += !e->rc;
			bad += e->rc != 0;
			break;
		case 'P':
			n_edit += 2;
			bad += e->rc || e->err;
			break;
		case 'M':
			n_flip++;
			bad += e->rc != 0;
			break;
		}
		if ((e->type == 'X' || e->type == 'P') && e->file >= 0 && e->file < NFILES) {
			if (!changes[e->file] &&
			    !(changes[e->file] = calloc(nevs, sizeof(*changes[e->file]))))
				die("calloc");
			changes[e->file][nchanges[e->file]++] = e;
		}
	}
	check(!bad, "workload: every exec exited 0, every kill/setpriority refused before the "
	       "hook got EPERM, no ESRCH, every rewrite, policy edit and mode flip succeeded "
	       "(%ld did not)", bad);
}

/* Join each exec child's BPF record by its pid, and each actor's calls that
 * reach a hook, in order, with its records of that hook in seq order; then
 * each BPF record with the kernel's of the same seq */
static void join(void)
{
	struct child *children = calloc(nevs + 1, sizeof(*children)), *c;
	size_t cursor[NACTORS][2] = { { 0 } }, nchildren = 0, reused = 0;
	int ok = 1;

	for (size_t i = 0; i < nevs; i++)
		if (evs[i].type == 'E')
			children[nchildren++] = (struct child){ evs[i].child, &evs[i] };
	qsort(children, nchildren, sizeof(*children), by_pid);
	for (size_t i = 1; i < nchildren; i++)
		reused += children[i].pid == children[i - 1].pid;
	shown = 0;
	for (size_t i = 0; i < nb; i++) {
		struct rec *r = &recs[i];
		struct child key = { (pid_t)r->pid, NULL };
		int k = find_target(r->pid), h = r->hook;
		char type = h == FCAPS_HOOK_KILL ? 'K' : h == FCAPS_HOOK_SETNICE ? 'N' : '?';
		size_t *j;

		if ((c = bsearch(&key, children, nchildren, sizeof(*children), by_pid))) {
			if (c->e->bpf || h != FCAPS_HOOK_EXEC) {
				ok = 0;
				detail("exec child %d has a second record", c->pid);
				show_rec("second", r);
				continue;
			}
			c->e->bpf = r;
			got[h]++;
			continue;
		}
		if (k < 0 || k >= NACTORS)
			continue;	/* not a worker: other guest processes, sleepers */
		got[h]++;
		for (j = &cursor[k][type == 'N']; *j < nevs; ++*j)
			if (evs[*j].type == type && evs[*j].actor == tg[k].pid && evs[*j].reach)
				break;
		if (type == '?' || *j == nevs) {
			ok = 0;
			detail("a record that no hooked call of actor %d explains", tg[k].pid);
			show_rec("record", r);
			continue;
		}
		evs[*j].bpf = r;
		if (evs[*j].target != (pid_t)r->target || (type == 'K' && evs[*j].sig != r->sig)) {
			ok = 0;
			detail("actor %d's call to %d (sig %d) joined a record about %llu (sig %lld)",
			       evs[*j].actor, evs[*j].target, evs[*j].sig,
			       (unsigned long long)r->target, (long long)r->sig);
		}
		++*j;
	}
	for (size_t i = 0; i < nevs; i++) {
		struct ev *e = &evs[i];
		struct rec key = { 0 };

		if ((e->type == 'E' || ((e->type == 'K' || e->type == 'N') && e->reach)) && !e->bpf) {
			ok = 0;
			detail("no BPF record for '%c' by %d (child %d, target %d)", e->type,
			       e->actor, e->child, e->target);
		}
		if (e->bpf) {
			key.seq = e->bpf->seq;
			e->kern = bsearch(&key, krecs, nk, sizeof(*krecs), by_seq);
		}
	}
	for (int h = 0; h < FCAPS_NHOOKS; h++)
		ok &= got[h] == calls[h];
	if (reused)
		detail("%zu exec children's pids were reused: the join by pid is void", reused);
	check(ok && !reused, "counts: exec %ld records for %ld execve(); kill %ld for %ld calls "
	       "that reached the hook (%ld refused by the uid check before it: none recorded); "
	       "setnice %ld for %ld (%ld refused before it); no other hook recorded for the "
	       "workers", got[FCAPS_HOOK_EXEC], calls[FCAPS_HOOK_EXEC], got[FCAPS_HOOK_KILL],
	       calls[FCAPS_HOOK_KILL], nohook[FCAPS_HOOK_KILL], got[FCAPS_HOOK_SETNICE],
	       calls[FCAPS_HOOK_SETNICE], nohook[FCAPS_HOOK_SETNICE]);
	free(children);
}

/* Exec: each side saw a value the file held during the exec and gave the
 * rules' credentials for it; the sides differ only across a change */
static void check_execs(void)
{
	long div_r = 0, div_e = 0;
	int ok = 1;

	shown = 0;
	for (size_t i = 0; i < nevs; i++) {
		struct ev *e = &evs[i];
		const struct rec *b = e->bpf, *k = e->kern;
		int a = find_target(e->actor), f = e->file, vb, vk;

		if (e->type != 'E' || !b)
			continue;
		vb = value_in(b);
		vk = k ? value_in(k) : -1;
		if (!k || b->dev != fl[f].dev || b->ino != fl[f].ino ||
		    k->dev != fl[f].dev || k->ino != fl[f].ino || vb < 0 || vk < 0 ||
		    !(possible(f, e->t0, e->t1, 1) & (1u << vb)) ||
		    !(possible(f, e->t0, e->t1, 0) & (1u << vk)) ||
		    !exec_rule_ok(b, tg[a].uid) || !exec_rule_ok(k, tg[a].uid) ||
		    (vb == vk && (b->pp != k->pp || b->pe != k->pe ||
				  b->secureexec != k->secureexec))) {
			ok = 0;
			detail("exec of %s by actor %d (uid %u), child %d: values bpf %d kernel %d, "
			       "possible %#x", files[f].name, e->actor, tg[a].uid, e->child,
			       vb, vk, possible(f, e->t0, e->t1, 1));
			show_rec("bpf", b);
			show_rec("kernel", k);
		}
		if (vb != vk)
			files[f].kind == REWRITTEN ? div_r++ : div_e++;
	}
	check(ok, "exec: every BPF and kernel record is of the file executed and carries a value "
	       "it held during the exec, with the credentials SEMANTICS 2 gives");
	check(div_r <= rw_ok, "exec: kernel and BPF saw different values of a rewritten file "
	       "%ld times (<= %ld rewrites); of a policy-edited file %ld times (BPF between "
	       "'policy del' and 'add')", div_r, rw_ok, div_e);
}

/* Signals (@type 'K', SEMANTICS 3) or scheduling ('N', SEMANTICS 4): the
 * rule on each record's inputs, which are the processes' own; the kernel's
 * record agreeing; what the worker saw */
static void check_pairs(char type)
{
	const char *name = type == 'K' ? "kill" : "setnice";
	int cap = type == 'K' ? CAP_KILL : CAP_SYS_NICE, ok_rule = 1, ok_k = 1, ok_seen = 1;
	long denied = 0, no_kernel = 0;

	shown = 0;
	for (size_t i = 0; i < nevs; i++) {
		struct ev *e = &evs[i];
		const struct rec *rs[2] = { e->bpf, e->kern };
		int s = find_target(e->actor), t = find_target(e->target);

		if (e->type != type || !e->bpf)
			continue;
		for (int side = 0; side < 2 && rs[side]; side++) {
			const struct rec *r = rs[side];
			int subset = !(r->target_pp & ~r->pp);
			int allow = type == 'K' ? (subset && r->same_userns) || r->cap_in_target_ns :
						  subset || r->cap_in_target_ns;

			if (r->ret != (allow ? 0 : -EPERM) || r->explicit_cred || !r->same_userns ||
			    r->cap_in_target_ns != ((r->pe >> cap) & 1) || s < 0 || t < 0 ||
			    r->pp != tg[s].pp || r->pe != tg[s].pe || r->target_pp != tg[t].pp) {
				ok_rule = 0;
				detail("this record breaks the rule or names wrong sets");
				show_rec(side ? "kernel" : "bpf", r);
			}
		}
		denied += e->bpf->ret != 0;
		if (!e->kern && e->bpf->ret) {
			no_kernel++;	/* refused by BPF in enforce mode: no LSM ran */
		} else if (!e->kern || e->kern->ret != e->bpf->ret ||
			   e->kern->target != e->bpf->target || e->kern->pid != e->bpf->pid) {
			ok_k = 0;
			detail("kernel record missing or disagreeing");
			show_rec("bpf", e->bpf);
			show_rec("kernel", e->kern);
		}
		if ((e->rc ? -e->err : 0) != e->bpf->ret) {
			ok_seen = 0;
			detail("actor %d saw %d (errno %d) for target %d", e->actor, e->rc,
			       e->err, e->target);
			show_rec("bpf", e->bpf);
		}
	}
	check(ok_rule, "%s: every record's ret is SEMANTICS %d applied to its pp, target_pp, pe, "
	       "same_userns, cap_in_target_ns, which are the processes' own (%ld of %ld denied)",
	       name, type == 'K' ? 3 : 4, denied, got[type == 'K' ? FCAPS_HOOK_KILL :
						     FCAPS_HOOK_SETNICE]);
	check(ok_k, "%s: the kernel's record agrees with BPF's wherever the kernel's hook ran "
	       "(%ld refused by BPF in enforce mode, so no kernel record)", name, no_kernel);
	check(ok_seen, "%s: every result the workers saw is the recorded decision", name);
}

static int cmd_check(int argc, char **argv)
{
	__u64 seen[FCAPS_NHOOKS], errors[FCAPS_NHOOKS], err_sum = 0;
	long fill, kfill;

	if (argc != 4)
		return fprintf(stderr, "usage: fcapsctl decisions --json | "
			       "fcaps_stress check LOG STATUS.json\n"), 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (read_log(argv[2]) || read_status(argv[3], seen, errors, &fill, &kfill)) {
		fprintf(stderr, "fcaps_stress check: cannot read %s or %s\n", argv[2], argv[3]);
		return 2;
	}
	read_records(stdin);
	account();

	for (int h = 0; h < FCAPS_NHOOKS; h++)
		err_sum += errors[h];
	printf("decisions map: %ld of %d entries (%.1f%%), kdecisions %ld\n", fill,
	       FCAPS_MAX_DECISIONS, 100.0 * fill / FCAPS_MAX_DECISIONS, kfill);
	check(err_sum == 0 && fill < FCAPS_MAX_DECISIONS && (size_t)fill <= nb,
	       "no record lost: counters.errors is 0 for every hook (sum %llu), the map is "
	       "not full and its %ld records were read (%zu, with those made since)",
	       (unsigned long long)err_sum, fill, nb);

	join();
	check_execs();
	check_pairs('K');
	check_pairs('N');
	/* xattr: no record, but the sync program counts every change */
	check(seen[FCAPS_HOOK_XATTR] == (__u64)rw_ok && seen[FCAPS_HOOK_XATTR_GUARD] == (__u64)n_rw,
	       "xattr: counters.xattr.seen %llu == %ld successful rewrites; xattr_guard.seen %llu "
	       "== %ld attempts", (unsigned long long)seen[FCAPS_HOOK_XATTR], rw_ok,
	       (unsigned long long)seen[FCAPS_HOOK_XATTR_GUARD], n_rw);

	printf("counters (all processes): exec seen %llu, kill %llu, setnice %llu; "
	       "records of the workers: %ld, %ld, %ld\n",
	       (unsigned long long)seen[FCAPS_HOOK_EXEC], (unsigned long long)seen[FCAPS_HOOK_KILL],
	       (unsigned long long)seen[FCAPS_HOOK_SETNICE], got[FCAPS_HOOK_EXEC],
	       got[FCAPS_HOOK_KILL], got[FCAPS_HOOK_SETNICE]);
	printf("totals: execs=%ld signals=%ld (%ld reached the hook) sched=%ld (%ld) rewrites=%ld "
	       "policy_edits=%ld mode_flips=%ld\n", n_exec, n_kill, calls[FCAPS_HOOK_KILL],
	       n_nice, calls[FCAPS_HOOK_SETNICE], n_rw, n_edit, n_flip);
	return finish();
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "run"))
		return cmd_run(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "check"))
		return cmd_check(argc, argv);
	fprintf(stderr, "usage: fcaps_stress run DIR SECONDS LOG [SEED [BUDGET]]\n"
		"       fcapsctl decisions --json | fcaps_stress check LOG STATUS.json\n");
	return 2;
}
