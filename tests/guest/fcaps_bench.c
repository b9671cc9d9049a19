// SPDX-License-Identifier: GPL-2.0
/*
 * fcaps_bench: the micro-benchmarks of `make bench` (tests/guest/bench.sh
 * runs them in every mode and round; tests/bench/report.py reads them).
 *
 *   fcaps_bench [--label NAME] [--max-seconds S] WHAT ITERS [FILE]
 *       warm up (ITERS/10 operations), then time one batch of ITERS with
 *       CLOCK_MONOTONIC and print "what=NAME iters=N ns_per_op=X"; with
 *       --max-seconds the batch ends early once it has run S seconds (N is
 *       then the count done: slow modes keep the run short).
 *       WHAT:
 *         exec_plain, exec_v1, exec   fork + execve(FILE) + wait (FILE is
 *                                     required; the names only label it)
 *         kill0        kill(child, 0) to a child of the same uid (paused)
 *         sigdeliver   SIGUSR1 to a child blocked in sigwaitinfo(), which
 *                      acknowledges each through a pipe: one round trip
 *         tgkill       tgkill() of a blocked SIGUSR2 to a sibling thread
 *         setprio      setpriority(PRIO_PROCESS, child, its own nice value)
 *         capable_loop sethostname(current name): a capable() per call
 *         rw           one byte written to a pipe and read back
 *         openclose    open("/dev/null", O_WRONLY) and close()
 *   fcaps_bench calibrate SECONDS WHAT [FILE]
 *       print the ITERS that makes one batch of WHAT take about SECONDS
 *   fcaps_bench mkexit FILE
 *       write a 129-byte static x86-64 ELF that only calls exit(0)
 *   fcaps_bench mktree DIR N LIST
 *       create N empty files under DIR (1000 a directory), every 100th
 *       with the legacy v1 value of 'cap_net_raw+ep' (what `fcapsctl
 *       setcap F cap_net_raw+ep` writes), and LIST: one policy line
 *       "PATH hex:VALUE" for each file, for `fcapsctl policy import`
 *   fcaps_bench fillpolicy N
 *       make the pinned policy map hold N entries by adding synthetic
 *       keys (dev BENCH_DEV, ino 1, 2, ...): exit 3 with "skip: why" when
 *       N is above the map's max_entries or below its current fill
 *   fcaps_bench clearpolicy
 *       delete every synthetic key; countpolicy: "entries=N max_entries=M"
 *   fcaps_bench rate [--timeout S] WHAT COUNT LOG -- CMD [ARG]...
 *       run CMD (stdout and stderr appended to LOG), time it and print
 *       "what=WHAT count=COUNT seconds=S per_s=COUNT/S"; CMD failing is
 *       exit 1; past S seconds CMD is killed, "timeout=1" is added (per_s
 *       is then an upper bound) and the exit status is 3
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include "fcaps.h"
#include "ring.h"

#define BENCH_DEV	0xFFFFFU	/* minor 0xfffff of major 0: no device */
#define CAP_NET_RAW	13
#define BATCH		8192

static void die(const char *what)
{
	fprintf(stderr, "fcaps_bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* ---- the operations; each bench_* returns the ns of one timed batch ---- */

static __u64 max_ns;	/* --max-seconds: a batch ends early past this */

/*
 * --drain: the decision rings pinned under DRAIN_PIN, emptied before a
 * batch and every DRAIN_EVERY operations of it, with the clock stopped.
 * A ring holds 65,536 records; without this a recording mode is timed
 * mostly on the path of a full ring, which writes nothing. Each drain maps
 * the rings and unmaps them again: a mapping kept would be copied by every
 * fork of an exec batch, which no other mode pays.
 */
#define DRAIN_PIN	"/sys/fs/bpf/fcaps"
#define DRAIN_EVERY	16384
static int drain_on;

/* Free every slot that holds a record; its ns, to take off the batch */
static __u64 drain(void)
{
	static const char *const names[] = { "decisions", "kdecisions" };
	struct fcaps_decision d;
	__u64 t0 = now_ns();
	struct ring r;
	char path[64];

	for (size_t n = 0; drain_on && n < sizeof(names) / sizeof(names[0]); n++) {
		snprintf(path, sizeof(path), DRAIN_PIN "/%s", names[n]);
		if (access(path, F_OK))
			continue;	/* not loaded, or no kernel recorder */
		if (ring_open(path, &r)) {
			fprintf(stderr, "fcaps_bench: --drain: cannot map %s\n", path);
			exit(1);
		}
		for (__u32 i = 0; i < FCAPS_MAX_DECISIONS; i++)
			if (ring_read(&r, i, &d))
				ring_free(&r, i, d.seq);
		ring_close(&r);
	}
	return now_ns() - t0;
}

/*
 * The timed batch: the statement(s) ... *@iters times, or fewer once the
 * batch has run max_ns (checked after every @mask + 1 operations, so the
 * check costs the same in every mode); *@iters becomes the count done.
 * Evaluates to the batch's ns, drains not counted.
 */
#define TIMED(iters, mask, ...) ({					\
	__u64 _t0;							\
	long _i, _n = *(iters);						\
	drain();							\
	_t0 = now_ns();							\
	for (_i = 0; _i < _n; _i++) {					\
		__VA_ARGS__;						\
		if ((_i & (mask)) != (mask))				\
			continue;					\
		if (drain_on && (_i & (DRAIN_EVERY - 1)) == (mask))	\
			_t0 += drain();					\
		if (max_ns && now_ns() - _t0 > max_ns) {		\
			_i++;						\
			break;						\
		}							\
	}								\
	*(iters) = _i;							\
	now_ns() - _t0;							\
})

static char *const no_env[] = { NULL };

static void exec_once(const char *file)
{
	char *const argv[] = { (char *)file, NULL };
	int status;
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		execve(file, argv, no_env);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "fcaps_bench: exec of %s failed (status %#x)\n", file, status);
		exit(1);
	}
}

static __u64 bench_exec(long *iters, const char *file)
{
	if (!file) {
		fprintf(stderr, "fcaps_bench: exec wants a FILE\n");
		exit(2);
	}
	for (long i = 0; i < *iters / 10 + 1; i++)
		exec_once(file);
	return TIMED(iters, 0, exec_once(file));
}

/* A child of the same uid that waits for a signal to end it. */
static pid_t paused_child(void)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		for (;;)
			pause();
	}
	return pid;
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static __u64 bench_kill0(long *iters, const char *file)
{
	pid_t pid = paused_child();
	__u64 t;

	(void)file;
	for (long i = 0; i < *iters / 10 + 1; i++)
		if (kill(pid, 0))
			die("kill(child, 0)");
	t = TIMED(iters, 63, kill(pid, 0));
	reap(pid);
	return t;
}

/* One byte written to a pipe and read back: two file_permission() calls
 * (the hook fcaps keeps off), the cost any read()/write() loop pays */
static __u64 bench_rw(long *iters, const char *file)
{
	int p[2];
	char c = 'x';
	__u64 t;

	(void)file;
	if (pipe(p))
		die("pipe");
	for (long i = 0; i < *iters / 10 + 1; i++)
		if (write(p[1], &c, 1) != 1 || read(p[0], &c, 1) != 1)
			die("pipe round trip");
	t = TIMED(iters, 15, if (write(p[1], &c, 1) != 1 || read(p[0], &c, 1) != 1)
			die("pipe round trip"));
	close(p[0]);
	close(p[1]);
	return t;
}

/* open() and close() of /dev/null for writing: the file_open hook, where
 * the integrity programs look for the knobs that silence BPF */
static __u64 bench_openclose(long *iters, const char *file)
{
	__u64 t;
	int fd;

	(void)file;
	for (long i = 0; i < *iters / 10 + 1; i++) {
		fd = open("/dev/null", O_WRONLY);
		if (fd < 0)
			die("open /dev/null");
		close(fd);
	}
	t = TIMED(iters, 3, fd = open("/dev/null", O_WRONLY);
		  if (fd < 0)
			  die("open /dev/null");
		  close(fd));
	return t;
}

static __u64 bench_sigdeliver(long *iters, const char *file)
{
	sigset_t set, old;
	int ack[2];
	pid_t pid;
	char c;
	__u64 t;

	(void)file;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	if (pipe(ack) || sigprocmask(SIG_BLOCK, &set, &old))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		close(ack[0]);
		for (;;)
			if (sigwaitinfo(&set, NULL) == SIGUSR1 && write(ack[1], "x", 1) != 1)
				_exit(1);
	}
	close(ack[1]);
	for (long i = 0; i < *iters / 10 + 1; i++)
		if (kill(pid, SIGUSR1) || read(ack[0], &c, 1) != 1)
			die("signal round trip");
	t = TIMED(iters, 7, kill(pid, SIGUSR1);
		  if (read(ack[0], &c, 1) != 1)
			  die("signal round trip"));
	reap(pid);
	close(ack[0]);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return t;
}

struct sibling {
	int tid;
	int ready[2];		/* the thread writes its tid */
	int quit[2];		/* closed by the main thread to end it */
};

static void *sibling_main(void *arg)
{
	struct sibling *s = arg;
	char c;

	s->tid = syscall(SYS_gettid);
	if (write(s->ready[1], "x", 1) != 1)
		return NULL;
	while (read(s->quit[0], &c, 1) > 0)
		;
	return NULL;
}

static __u64 bench_tgkill(long *iters, const char *file)
{
	struct sibling s = {};
	sigset_t set, old;
	pthread_t th;
	pid_t tgid = getpid();
	char c;
	__u64 t;

	(void)file;
	/* blocked in both threads: each tgkill is checked, then stays pending */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	if (pipe(s.ready) || pipe(s.quit) || pthread_sigmask(SIG_BLOCK, &set, &old))
		die("pipe");
	errno = pthread_create(&th, NULL, sibling_main, &s);
	if (errno)
		die("pthread_create");
	if (read(s.ready[0], &c, 1) != 1)
		die("waiting for the sibling thread");
	for (long i = 0; i < *iters / 10 + 1; i++)
		if (syscall(SYS_tgkill, tgid, s.tid, SIGUSR2))
			die("tgkill");
	t = TIMED(iters, 63, syscall(SYS_tgkill, tgid, s.tid, SIGUSR2));
	close(s.quit[1]);
	pthread_join(th, NULL);
	close(s.quit[0]);
	close(s.ready[0]);
	close(s.ready[1]);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return t;
}

static __u64 bench_setprio(long *iters, const char *file)
{
	pid_t pid = paused_child();
	int prio;
	__u64 t;

	(void)file;
	errno = 0;
	prio = getpriority(PRIO_PROCESS, pid);
	if (prio == -1 && errno)
		die("getpriority");
	for (long i = 0; i < *iters / 10 + 1; i++)
		if (setpriority(PRIO_PROCESS, pid, prio))
			die("setpriority");
	t = TIMED(iters, 63, setpriority(PRIO_PROCESS, pid, prio));
	reap(pid);
	return t;
}

static __u64 bench_capable(long *iters, const char *file)
{
	char name[65] = "";
	size_t len;

	(void)file;
	if (gethostname(name, sizeof(name) - 1))
		die("gethostname");
	len = strlen(name);
	for (long i = 0; i < *iters / 10 + 1; i++)
		if (sethostname(name, len))
			die("sethostname");
	return TIMED(iters, 63, sethostname(name, len));
}

static const struct {
	const char *name;
	__u64 (*fn)(long *iters, const char *file);
} benches[] = {
	{ "exec", bench_exec },
	{ "exec_plain", bench_exec },
	{ "exec_v1", bench_exec },
	{ "kill0", bench_kill0 },
	{ "sigdeliver", bench_sigdeliver },
	{ "tgkill", bench_tgkill },
	{ "setprio", bench_setprio },
	{ "capable_loop", bench_capable },
	{ "rw", bench_rw },
	{ "openclose", bench_openclose },
};

static __u64 (*find_bench(const char *name))(long *, const char *)
{
	for (size_t i = 0; i < sizeof(benches) / sizeof(benches[0]); i++)
		if (!strcmp(benches[i].name, name) ||
		    (!strncmp(name, "exec", 4) && !strcmp(benches[i].name, "exec")))
			return benches[i].fn;
	fprintf(stderr, "fcaps_bench: unknown benchmark '%s'\n", name);
	exit(2);
}

static long parse_long(const char *s, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || *end || v < 0) {
		fprintf(stderr, "fcaps_bench: %s '%s' is not a count\n", what, s);
		exit(2);
	}
	return v;
}

/* Double the batch until it takes an eighth of the target, then scale. */
static int calibrate(double seconds, const char *what, const char *file)
{
	__u64 (*fn)(long *, const char *) = find_bench(what);
	__u64 target = seconds * 1e9, ns = 0;
	long n = 1, done;

	for (;;) {
		done = n;
		ns = fn(&done, file);
		if (ns >= target / 8 || n >= (1L << 30))
			break;
		n *= 2;
	}
	n = ns ? (long)((double)n * target / ns) : n;
	printf("%ld\n", n > 0 ? n : 1);
	return 0;
}

/* ---- files ---- */

/* An ELF64 x86-64 executable of one segment: xor edi,edi; mov eax,60; syscall */
static int mkexit(const char *path)
{
	static const unsigned char code[] = {
		0x31, 0xff, 0xb8, 0x3c, 0x00, 0x00, 0x00, 0x0f, 0x05,
	};
	const __u64 base = 0x400000;
	struct {
		Elf64_Ehdr eh;
		Elf64_Phdr ph;
		unsigned char code[sizeof(code)];
	} __attribute__((packed)) img = {};
	int fd;

	memcpy(img.eh.e_ident, ELFMAG, SELFMAG);
	img.eh.e_ident[EI_CLASS] = ELFCLASS64;
	img.eh.e_ident[EI_DATA] = ELFDATA2LSB;
	img.eh.e_ident[EI_VERSION] = EV_CURRENT;
	img.eh.e_ident[EI_OSABI] = ELFOSABI_SYSV;
	img.eh.e_type = ET_EXEC;
	img.eh.e_machine = EM_X86_64;
	img.eh.e_version = EV_CURRENT;
	img.eh.e_entry = base + sizeof(img.eh) + sizeof(img.ph);
	img.eh.e_phoff = sizeof(img.eh);
	img.eh.e_ehsize = sizeof(img.eh);
	img.eh.e_phentsize = sizeof(img.ph);
	img.eh.e_phnum = 1;
	img.ph.p_type = PT_LOAD;
	img.ph.p_flags = PF_R | PF_X;
	img.ph.p_offset = 0;
	img.ph.p_vaddr = img.ph.p_paddr = base;
	img.ph.p_filesz = img.ph.p_memsz = sizeof(img);
	img.ph.p_align = 0x1000;
	memcpy(img.code, code, sizeof(code));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (fd < 0 || write(fd, &img, sizeof(img)) != (ssize_t)sizeof(img) || close(fd))
		die(path);
	return 0;
}

/* The bytes `fcapsctl setcap F cap_net_raw+ep` writes (a v1 value). */
static __u32 v1_value(__u8 *buf)
{
	struct fcaps_sets sets = {
		.effective = 1ULL << CAP_NET_RAW,
		.permitted = 1ULL << CAP_NET_RAW,
	};

	return fcaps_encode(&sets, FCAPS_V1_TAG, buf);
}

static int mktree(const char *dir, long n, const char *list)
{
	__u8 val[FCAPS_MAX_SIZE];
	__u32 len = v1_value(val);
	char path[4096], hex[2 * FCAPS_MAX_SIZE + 1];
	FILE *out = fopen(list, "w");
	__u64 t0 = now_ns();
	long valued = 0;

	if (!out)
		die(list);
	for (__u32 i = 0; i < len; i++)
		sprintf(hex + 2 * i, "%02x", val[i]);
	if (mkdir(dir, 0755) && errno != EEXIST)
		die(dir);
	for (long i = 0; i < n; i++) {
		int fd;

		if (i % 1000 == 0) {
			snprintf(path, sizeof(path), "%s/d%04ld", dir, i / 1000);
			if (mkdir(path, 0755) && errno != EEXIST)
				die(path);
		}
		snprintf(path, sizeof(path), "%s/d%04ld/f%07ld", dir, i / 1000, i);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || close(fd))
			die(path);
		if (i % 100 == 0) {
			if (setxattr(path, FCAPS_XATTR_NAME, val, len, 0))
				die(path);
			valued++;
		}
		fprintf(out, "%s hex:%s\n", path, hex);
	}
	if (fclose(out))
		die(list);
	printf("tree: %ld files under %s, %ld with a v1 value, in %.1f s; %s lists them\n",
	       n, dir, valued, (now_ns() - t0) / 1e9, list);
	return 0;
}

/* ---- the policy map ---- */

static int policy_fd(__u32 *max_entries)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	int fd = bpf_obj_get(FCAPS_PIN_DIR "/policy");

	if (fd < 0)
		die("opening " FCAPS_PIN_DIR "/policy");
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		die("reading the policy map's info");
	if (info.key_size != sizeof(struct fcaps_file_key) ||
	    info.value_size != sizeof(struct fcaps_policy_value)) {
		fprintf(stderr, "fcaps_bench: the policy map has key/value sizes %u/%u, "
			"bpf/fcaps.h says %zu/%zu\n", info.key_size, info.value_size,
			sizeof(struct fcaps_file_key), sizeof(struct fcaps_policy_value));
		exit(1);
	}
	*max_entries = info.max_entries;
	return fd;
}

/* Walk the map in batches: how many entries, how many of them synthetic. */
static void walk_policy(int fd, long *total, long *nsynth)
{
	static struct fcaps_file_key keys[BATCH];
	static struct fcaps_policy_value vals[BATCH];
	__u64 in[2] = {}, out[2] = {};
	int first = 1;

	*total = *nsynth = 0;
	for (;;) {
		__u32 count = BATCH;
		int err = bpf_map_lookup_batch(fd, first ? NULL : in, out, keys, vals,
					       &count, NULL);

		if (err && errno != ENOENT)
			die("walking the policy map (bpf_map_lookup_batch)");
		for (__u32 i = 0; i < count; i++) {
			(*total)++;
			if (keys[i].dev == BENCH_DEV)
				(*nsynth)++;
		}
		if (err)
			return;		/* ENOENT: that was the last batch */
		memcpy(in, out, sizeof(in));
		first = 0;
	}
}

/* Apply @n keys ino @from.. as update (@value) or delete (!@value). */
static void synth_keys(int fd, __u64 from, long n, const struct fcaps_policy_value *value)
{
	static struct fcaps_file_key keys[BATCH];
	static struct fcaps_policy_value vals[BATCH];
	LIBBPF_OPTS(bpf_map_batch_opts, opts, .elem_flags = BPF_ANY);

	for (long done = 0; done < n;) {
		__u32 count = n - done > BATCH ? BATCH : n - done;
		int err;

		for (__u32 i = 0; i < count; i++) {
			keys[i] = (struct fcaps_file_key){ .dev = BENCH_DEV,
							   .ino = from + done + i };
			if (value)
				vals[i] = *value;
		}
		err = value ? bpf_map_update_batch(fd, keys, vals, &count, &opts) :
			      bpf_map_delete_batch(fd, keys, &count, &opts);
		if (err && (errno == EINVAL || errno == ENOTSUP || errno == EOPNOTSUPP)) {
			/* no batch operations: one at a time */
			for (count = 0; count < (n - done > BATCH ? BATCH : n - done); count++)
				if (value ? bpf_map_update_elem(fd, &keys[count], value, BPF_ANY) :
					    bpf_map_delete_elem(fd, &keys[count]))
					break;
			err = count ? 0 : -1;
		}
		if (err)
			die(value ? "filling the policy map" : "clearing the policy map");
		done += count;
	}
}

static int fillpolicy(long n)
{
	struct fcaps_policy_value value = {};
	long total, nsynth;
	__u32 max;
	int fd = policy_fd(&max);
	__u64 t0;

	if (n > (long)max) {
		printf("skip: the policy map's max_entries is %u, less than %ld\n", max, n);
		return 3;
	}
	walk_policy(fd, &total, &nsynth);
	if (total > n) {
		printf("skip: the policy map already holds %ld entries, more than %ld\n", total, n);
		return 3;
	}
	value.len = v1_value(value.value);
	t0 = now_ns();
	synth_keys(fd, nsynth + 1, n - total, &value);
	printf("policy: %ld entries (max_entries %u): %ld synthetic added in %.2f s to %ld\n",
	       n, max, n - total, (now_ns() - t0) / 1e9, total);
	return 0;
}

static int clearpolicy(void)
{
	long total, nsynth;
	__u32 max;
	int fd = policy_fd(&max);

	walk_policy(fd, &total, &nsynth);
	/* synthetic keys are ino 1..nsynth: fillpolicy adds them in order */
	synth_keys(fd, 1, nsynth, NULL);
	printf("policy: %ld synthetic entries removed, %ld left\n", nsynth, total - nsynth);
	return 0;
}

static int countpolicy(void)
{
	long total, nsynth;
	__u32 max;
	int fd = policy_fd(&max);

	walk_policy(fd, &total, &nsynth);
	printf("entries=%ld synthetic=%ld max_entries=%u\n", total, nsynth, max);
	return 0;
}

/* ---- rate: time a whole command ---- */

static volatile sig_atomic_t timed_out;

static void on_alarm(int sig)
{
	(void)sig;
	timed_out = 1;
}

static int rate(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	unsigned int timeout = 0;
	const char *what, *log;
	long count;
	int status, fd;
	pid_t pid;
	__u64 t0, t;
	double s;

	if (argc > 2 && !strcmp(argv[1], "--timeout")) {
		timeout = parse_long(argv[2], "--timeout");
		argc -= 2;
		argv += 2;
	}
	if (argc < 6 || strcmp(argv[4], "--")) {
		fprintf(stderr, "usage: fcaps_bench rate [--timeout S] WHAT COUNT LOG -- CMD...\n");
		return 2;
	}
	what = argv[1];
	count = parse_long(argv[2], "COUNT");
	log = argv[3];
	fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0)
		die(log);
	sigaction(SIGALRM, &sa, NULL);
	t0 = now_ns();
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		dup2(fd, 1);
		dup2(fd, 2);
		execvp(argv[5], argv + 5);
		_exit(127);
	}
	alarm(timeout);
	while (waitpid(pid, &status, 0) != pid) {
		if (errno != EINTR)
			die("waitpid");
		if (timed_out)
			kill(pid, SIGKILL);
	}
	t = now_ns() - t0;
	alarm(0);
	s = t / 1e9;
	printf("what=%s count=%ld seconds=%.3f per_s=%.1f%s\n", what, count, s,
	       s > 0 ? count / s : 0, timed_out ? " timeout=1" : "");
	if (timed_out)
		return 3;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "fcaps_bench rate: %s failed (status %#x); see %s\n",
			argv[5], status, log);
		return 1;
	}
	return 0;
}

static int usage(int rc)
{
	fprintf(rc ? stderr : stdout,
		"usage: fcaps_bench [--label NAME] [--max-seconds S] [--drain] WHAT ITERS [FILE]\n"
		"       fcaps_bench calibrate SECONDS WHAT [FILE]\n"
		"       fcaps_bench mkexit FILE | mktree DIR N LIST\n"
		"       fcaps_bench fillpolicy N | clearpolicy | countpolicy\n"
		"       fcaps_bench rate [--timeout S] WHAT COUNT LOG -- CMD...\n"
		"WHAT: exec_plain|exec_v1|exec FILE, kill0, sigdeliver, tgkill, setprio,\n"
		"capable_loop. One batch after a warm-up; prints what= iters= ns_per_op=.\n"
		"--drain: empty the decision rings (" DRAIN_PIN ") before the batch and\n"
		"every %d operations, the clock stopped, so that each one is recorded.\n",
		DRAIN_EVERY);
	return rc;
}

int main(int argc, char **argv)
{
	const char *label = NULL;
	long iters;
	__u64 ns;

	if (argc < 2)
		return usage(2);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return usage(0);
	if (!strcmp(argv[1], "calibrate") && (argc == 4 || argc == 5))
		return calibrate(strtod(argv[2], NULL), argv[3], argc == 5 ? argv[4] : NULL);
	if (!strcmp(argv[1], "mkexit") && argc == 3)
		return mkexit(argv[2]);
	if (!strcmp(argv[1], "mktree") && argc == 5)
		return mktree(argv[2], parse_long(argv[3], "N"), argv[4]);
	if (!strcmp(argv[1], "fillpolicy") && argc == 3)
		return fillpolicy(parse_long(argv[2], "N"));
	if (!strcmp(argv[1], "clearpolicy") && argc == 2)
		return clearpolicy();
	if (!strcmp(argv[1], "countpolicy") && argc == 2)
		return countpolicy();
	if (!strcmp(argv[1], "rate"))
		return rate(argc - 1, argv + 1);
	for (;;) {
		if (!strcmp(argv[1], "--label") && argc > 3) {
			label = argv[2];
		} else if (!strcmp(argv[1], "--max-seconds") && argc > 3) {
			max_ns = strtod(argv[2], NULL) * 1e9;
		} else if (!strcmp(argv[1], "--drain") && argc > 2) {
			drain_on = 1;
			argc--;
			argv++;
			continue;
		} else {
			break;
		}
		argc -= 2;
		argv += 2;
	}
	if (argc != 3 && argc != 4)
		return usage(2);
	iters = parse_long(argv[2], "ITERS");
	if (!iters)
		iters = 1;
	ns = find_bench(argv[1])(&iters, argc == 4 ? argv[3] : NULL);
	printf("what=%s iters=%ld ns_per_op=%.1f\n", label ? label : argv[1], iters,
	       (double)ns / iters);
	return 0;
}
