// SPDX-License-Identifier: GPL-2.0
/*
 * fcaps_tamper [--nocaps] [--userns] OP ARG...: one attempt on the state of
 * BPF enforcement or on another process, by whoever runs it (a capped root
 * runs a capped copy; --nocaps empties every capability set first, as a
 * root that dropped them; --userns enters a new user namespace first, with
 * no id map and no exec: still kuid 0, every capability there), for the
 * guest tests of SEMANTICS 3 and 7. Prints "OP: ok" or
 * "OP: ERRNO" (the name) for the step that decides, and exits 0; 2 for a
 * usage error, 3 when the setup around the attempt failed.
 *
 *   map-read PIN...       read slot 0 of each array map, one after the other
 *   map-update PIN        rewrite slot 0 of an array map with its own value
 *   fork-map-update PIN   the same by a child forked after the map was got
 *   thread-map-update PIN the same after a thread of ours came and went
 *   map-delete PIN        delete an absent key of a hash map (ENOENT if let)
 *   map-cmds PIN          of a hash map, each command beside update and
 *                         delete that could change it, then two that only
 *                         read: "map-cmds: NAME ERRNO|ok ..." (no entry
 *                         changes: an absent key, batches of 0)
 *   map-freeze PIN        freeze a map
 *   mmap-write PIN        map an mmapable map writable (nothing written)
 *   mmap-validate PIN     the same with MAP_SHARED_VALIDATE
 *   mprotect PIN          map it read-only, then ask for PROT_WRITE
 *   prog-get PIN          a descriptor of a pinned program
 *   prog-load             load a socket filter of our own
 *   prog-with-map PIN     load a socket filter that refers to the map PIN
 *   map-of-maps PIN       create an array of maps shaped after PIN
 *   map-pin PATH          create an array map of our own and pin it at PATH
 *   link-detach PIN       detach a pinned link
 *   link-update PIN       update a pinned link to a program of our own
 *   pin-hold PIN S        hold a descriptor of a pinned object for S seconds
 *   hold S                print "hold: ok" and sleep S seconds (with
 *                         --userns: hold a user namespace)
 *   write FILE TEXT       open FILE for writing and write TEXT
 *   unlink PATH           unlink PATH
 *   read FILE             open FILE for reading and read from it
 *   personality HEX PROG ARG...  set the personality HEX, exec PROG ARG...
 *   personality-get       print this process's personality (hex)
 *   modreq                ask the kernel for a module (a socket of a family
 *                         it lacks), which runs kernel.modprobe
 *   prlimit PID           lower PID's RLIMIT_NOFILE soft limit by one
 *   prlimit-read PID      read PID's RLIMIT_NOFILE
 *   prlimit-rw PID        lower it and read the old one in the same call
 *   idmap-mount SRC DST MAP [GIDMAP]  bind SRC on DST idmapped by a new
 *                         user namespace whose uid map is MAP ("0 1000
 *                         1", lines for more ranges) and gid map GIDMAP,
 *                         or MAP: the mount_setattr() step decides
 *   signals PID           every signal 1 to 64 by kill(), tgkill(),
 *                         rt_sigqueueinfo() (SI_QUEUE) and
 *                         pidfd_send_signal(): the errno all 256 failed
 *                         with; else "HOW SIG: ERRNO|ok" of the first apart
 *   sigio PID SIG         aim SIG at PID with F_SETOWN on a pipe, write it:
 *                         "delivered" if PID died of it, else "dropped"
 *   sigio-ex PID SIG tid|pid|pgrp  the same with F_SETOWN_EX of that type
 *                         (pgrp: PID is the group's)
 *   sigio-owner PID SIG UID   the same, but after this process aims it, a
 *                         child that became UID aims it again and exits:
 *                         the owner is the child, the writer this process
 *   sigio-writer PID SIG UID  this process aims it, a child that became
 *                         UID writes the pipe
 *   setns PID             enter PID's user namespace (CAP_SYS_ADMIN there)
 *   sigio-flood N         N files owned (F_SETOWN) by this process, which
 *                         then waits to be killed: "sigio-flood: ok"
 *   sigio-late PID SIG FILE [UID]  aim it, print "aimed", and once FILE
 *                         exists write the pipe (an owner set before a
 *                         load); with UID a child that became UID writes
 *   trace PID             trace PID (PTRACE_SEIZE) until it exits, passing
 *                         its signals on
 *   traceme PROG ARG...   fork; the child execs PROG ARG..., which calls
 *                         PTRACE_TRACEME (traceme-self): the child's result
 *   traceme-self          PTRACE_TRACEME; exit 0, or 100 + errno
 *   session-to-parent     a child of ours joins a new session keyring and
 *                         gives it to us (KEYCTL_SESSION_TO_PARENT: our
 *                         credentials are rebuilt from blank ones in
 *                         cred_transfer); then sethostname() as we are:
 *                         "session-to-parent: ok" once our keyring is the
 *                         child's, and "sethostname: ERRNO|ok"
 *   park-parents N        N parents asleep, each given a session keyring
 *                         by its child (N replacements pending), then one
 *                         more to us: the first error, else "ok"
 *   send-fd SOCK PIN      (uncapped) pass the map PIN over unix socket SOCK
 *   recv-fd SOCK          receive a descriptor on SOCK, then load a program
 *                         that refers to it (prog-with-map by descriptor)
 *   keyreq, sti TEXT, pty-shell CMD  tamper_tty.c
 *   nest, sigio-nsreuse, sb-reuse DIR REF, fowner-leak N  tamper_reuse.c
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
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <linux/mount.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "tamper_tty.h"
#include "tamper_reuse.h"

static const char *op;

int tamper_result(const char *name, int err)
{
	printf("%s: %s\n", name, err ? strerrorname_np(err) : "ok");
	return 0;
}

int tamper_setup_failed(const char *name, const char *what)
{
	fprintf(stderr, "fcaps_tamper %s: %s: %s\n", name, what, strerror(errno));
	return 3;
}

static int result(int err)
{
	return tamper_result(op, err);
}

static int setup_failed(const char *what)
{
	return tamper_setup_failed(op, what);
}

/* A descriptor of the pinned object at @path; its refusal is a failed
 * setup, never the attempt's own result */
static int pinned(const char *path)
{
	int fd = bpf_obj_get(path);

	if (fd < 0)
		exit(setup_failed(path));
	return fd;
}

static int map_info(int fd, struct bpf_map_info *info)
{
	__u32 len = sizeof(*info);

	memset(info, 0, sizeof(*info));
	return bpf_obj_get_info_by_fd(fd, info, &len);
}

/* The result of @child, which printed it: its exit status */
static int child_result(pid_t child)
{
	int status;

	if (child < 0)
		return setup_failed("fork");
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status))
		return setup_failed("the child");
	return WEXITSTATUS(status);
}

static void *thread_exits(void *arg)
{
	return arg;
}

/* @in_child: the descriptor is got here, the update made by a child, which
 * inherits the descriptor table as a copy; @after_thread: by this process
 * after a thread that shared its table ended */
static int map_update(const char *pin, int in_child, int after_thread)
{
	pthread_t thread;
	struct bpf_map_info info;
	int fd = pinned(pin);
	__u32 zero = 0;
	void *value;
	pid_t child;

	if (map_info(fd, &info) || !(value = calloc(1, info.value_size)))
		return setup_failed("map info");
	if (bpf_map_lookup_elem(fd, &zero, value))
		return setup_failed("reading slot 0");
	if (in_child) {
		fflush(stdout);
		child = fork();
		if (child)
			return child_result(child);
	}
	if (after_thread && (pthread_create(&thread, NULL, thread_exits, NULL) ||
			     pthread_join(thread, NULL)))
		return setup_failed("a thread");
	return result(bpf_map_update_elem(fd, &zero, value, BPF_ANY) ? errno : 0);
}

/* slot 0 of each pinned array map: a process that has read one may open
 * and read the next */
static int map_read(char **pins)
{
	for (; *pins; pins++) {
		struct bpf_map_info info;
		int fd = pinned(*pins);
		__u32 zero = 0;
		void *value;

		if (map_info(fd, &info) || !(value = calloc(1, info.value_size)))
			return setup_failed("map info");
		if (bpf_map_lookup_elem(fd, &zero, value))
			return result(errno);
		free(value);
	}
	return result(0);
}

static int map_delete(const char *pin)
{
	struct bpf_map_info info;
	int fd = pinned(pin);
	void *key;

	if (map_info(fd, &info) || !(key = calloc(1, info.key_size)))
		return setup_failed("map info");
	memset(key, 0xff, info.key_size);
	return result(bpf_map_delete_elem(fd, key) ? errno : 0);
}

/* Each command that could change a map but update and delete, from
 * lookup-and-delete to the batches; then two that only read */
static int map_cmds(const char *pin)
{
	static const char *const names[] = { "lookup-and-delete", "update-batch", "delete-batch",
					     "lookup-and-delete-batch", "lookup-batch", "next-key" };
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	struct bpf_map_info info;
	int fd = pinned(pin), err[6];
	__u32 count, batch;
	void *key, *value;

	if (map_info(fd, &info) || !(key = calloc(1, info.key_size)) ||
	    !(value = calloc(1, info.value_size)))
		return setup_failed("map info");
	memset(key, 0xff, info.key_size);
	err[0] = bpf_map_lookup_and_delete_elem(fd, key, value) ? errno : 0;
	count = 0;
	err[1] = bpf_map_update_batch(fd, key, value, &count, &opts) ? errno : 0;
	count = 0;
	err[2] = bpf_map_delete_batch(fd, key, &count, &opts) ? errno : 0;
	count = 0;
	err[3] = bpf_map_lookup_and_delete_batch(fd, NULL, &batch, key, value, &count,
						 &opts) ? errno : 0;
	count = 1;
	err[4] = bpf_map_lookup_batch(fd, NULL, &batch, key, value, &count, &opts) &&
		 errno != ENOENT ? errno : 0;
	err[5] = bpf_map_get_next_key(fd, NULL, key) && errno != ENOENT ? errno : 0;
	printf("%s:", op);
	for (int i = 0; i < 6; i++)
		printf(" %s %s", names[i], err[i] ? strerrorname_np(err[i]) : "ok");
	printf("\n");
	return 0;
}

static int map_pin(const char *path)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "tamper", 4, 4, 1, NULL);

	if (fd < 0)
		return setup_failed("creating a map");
	return result(bpf_obj_pin(fd, path) ? errno : 0);
}

static int map_mmap(const char *pin, int later, int validate)
{
	struct bpf_map_info info;
	int fd = pinned(pin);
	size_t len;
	void *p;

	if (map_info(fd, &info))
		return setup_failed("map info");
	len = (size_t)info.value_size * info.max_entries;
	len = (len + 4095) & ~4095UL;
	p = mmap(NULL, len, PROT_READ | (later ? 0 : PROT_WRITE),
		 validate ? MAP_SHARED_VALIDATE : MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return later ? setup_failed("mmap read-only") : result(errno);
	if (later)
		return result(mprotect(p, len, PROT_READ | PROT_WRITE) ? errno : 0);
	munmap(p, len);
	return result(0);
}

/* A socket filter that loads @map_fd's address and returns 0 */
static int load_with_map(int map_fd)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_LD | BPF_DW | BPF_IMM, .dst_reg = 1,
		  .src_reg = BPF_PSEUDO_MAP_FD, .imm = map_fd },
		{ 0 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "tamper", "GPL", insns, 4, NULL);

	return result(fd < 0 ? errno : 0);
}

static int prog_load(void)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "tamper", "GPL", insns, 2, NULL);

	return result(fd < 0 ? errno : 0);
}

static int map_of_maps(const char *pin)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .inner_map_fd = pinned(pin));
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, "tamper", 4, 4, 1, &opts);

	return result(fd < 0 ? errno : 0);
}

static int link_op(const char *pin, int update)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd = pinned(pin), prog;

	if (!update)
		return result(bpf_link_detach(fd) ? errno : 0);
	prog = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "tamper", "GPL", insns, 2, NULL);
	if (prog < 0)
		return setup_failed("loading a program to update the link to");
	return result(bpf_link_update(fd, prog, NULL) ? errno : 0);
}

static int write_file(const char *file, const char *text)
{
	int fd = open(file, O_WRONLY);

	if (fd < 0)
		return result(errno);
	return result(write(fd, text, strlen(text)) < 0 ? errno : 0);
}

static int read_file(const char *file)
{
	char buf[64];
	int fd = open(file, O_RDONLY);

	if (fd < 0)
		return result(errno);
	return result(read(fd, buf, sizeof(buf)) < 0 ? errno : 0);
}

/* @write: 0 read only, 1 write, 2 write and read back in one call */
static int lower_limit(pid_t pid, int write)
{
	struct rlimit old, new;

	if (prlimit(pid, RLIMIT_NOFILE, NULL, &old))
		return write ? setup_failed("reading the limit") : result(errno);
	if (!write)
		return result(0);
	new = old;
	if (new.rlim_cur > 1)
		new.rlim_cur--;
	return result(prlimit(pid, RLIMIT_NOFILE, &new, write == 2 ? &old : NULL) ? errno : 0);
}

/* Write @map to /proc/@pid/@file */
static int write_map(pid_t pid, const char *file, const char *map)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(map, f);
	return fclose(f);
}

/* A user namespace whose uid map is @map and gid map @gmap, held by a
 * child that waits for us: a descriptor of it, or -1 */
static int userns_fd(const char *map, const char *gmap)
{
	int ready[2], fd = -1;
	char path[64], c;
	pid_t child;

	if (pipe(ready))
		return -1;
	child = fork();
	if (child == 0) {
		close(ready[0]);
		if (unshare(CLONE_NEWUSER))
			_exit(1);
		write(ready[1], "x", 1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	if (child > 0 && read(ready[0], &c, 1) == 1 && !write_map(child, "uid_map", map) &&
	    !write_map(child, "setgroups", "deny") && !write_map(child, "gid_map", gmap)) {
		snprintf(path, sizeof(path), "/proc/%d/ns/user", child);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	close(ready[0]);
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	return fd;
}

static int idmap_mount(const char *src, const char *dst, const char *map, const char *gmap)
{
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_IDMAP };
	int tree;

	attr.userns_fd = userns_fd(map, gmap);
	if ((int)attr.userns_fd < 0)
		return setup_failed("a user namespace for the idmap");
	tree = syscall(SYS_open_tree, AT_FDCWD, src, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (tree < 0)
		return setup_failed("open_tree");
	if (syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH, &attr, sizeof(attr)))
		return result(errno);
	if (syscall(SYS_move_mount, tree, "", AT_FDCWD, dst, MOVE_MOUNT_F_EMPTY_PATH))
		return setup_failed("move_mount");
	return result(0);
}

/* One signal by one way; 0 or the errno */
static int send_by(int how, pid_t pid, int pidfd, int sig)
{
	siginfo_t info = { .si_signo = sig, .si_code = SI_QUEUE, .si_pid = getpid(),
			   .si_uid = getuid() };
	long rc;

	switch (how) {
	case 0:
		rc = kill(pid, sig);
		break;
	case 1:
		rc = syscall(SYS_tgkill, pid, pid, sig);
		break;
	case 2:
		rc = syscall(SYS_rt_sigqueueinfo, pid, sig, &info);
		break;
	default:
		rc = syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
		break;
	}
	return rc ? errno : 0;
}

/* Every signal by every way to name a process: a rule that spares one
 * signal or one si_code lets it through. Prints "signals: ERRNO" when all
 * failed alike, else "signals: HOW SIG: ERRNO|ok" for the first apart. */
static int all_signals(pid_t pid)
{
	static const char *const ways[] = { "kill", "tgkill", "sigqueue", "pidfd" };
	int pidfd = syscall(SYS_pidfd_open, pid, 0), first = -1;

	if (pidfd < 0)
		return setup_failed("pidfd_open");
	for (int how = 0; how < 4; how++)
		for (int sig = 1; sig <= 64; sig++) {
			int err = send_by(how, pid, pidfd, sig);

			if (first < 0)
				first = err;
			if (err != first || !err) {
				printf("signals: %s %d: %s\n", ways[how], sig,
				       err ? strerrorname_np(err) : "ok");
				return 0;
			}
		}
	close(pidfd);
	return result(first);
}

/* Is @pid gone or a zombie? */
static int dead(pid_t pid)
{
	char path[64], buf[256], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 1;
	p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
	fclose(f);
	return p && p[1] && p[2] == 'Z';
}

/* @sig pending for @pid, its thread or its group, or @pid gone: what a
 * signal sent by the kernel within a write shows at once, before the
 * target runs */
static int sent(pid_t pid, int sig)
{
	char path[64], line[256];
	unsigned long long mask;
	int seen = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return 1;
	while (fgets(line, sizeof(line), f))
		if ((sscanf(line, "SigPnd: %llx", &mask) == 1 ||
		     sscanf(line, "ShdPnd: %llx", &mask) == 1) && sig > 0 && (mask >> (sig - 1) & 1))
			seen = 1;
	fclose(f);
	return seen || dead(pid);
}

/* A child that becomes @uid, then runs @fn on the pipe @p */
static int as_uid(uid_t uid, int (*fn)(int *p, pid_t pid, int sig), int *p, pid_t pid, int sig)
{
	pid_t child = fork();
	int status;

	if (!child)
		_exit(setresgid(uid, uid, uid) || setresuid(uid, uid, uid) || fn(p, pid, sig));
	return child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
	       WEXITSTATUS(status);
}

/* sigio-ex: F_SETOWN_EX's owner type; F_SETOWN when negative */
static int owner_type = -1;

static int aim(int *p, pid_t pid, int sig)
{
	struct f_owner_ex ex = { owner_type, pid };

	return (owner_type < 0 ? fcntl(p[0], F_SETOWN, pid) : fcntl(p[0], F_SETOWN_EX, &ex)) ||
	       fcntl(p[0], F_SETSIG, sig) || fcntl(p[0], F_SETFL, O_ASYNC | O_NONBLOCK);
}

static int raise_io(int *p, pid_t pid __attribute__((unused)),
		    int sig __attribute__((unused)))
{
	return write(p[1], "x", 1) != 1;
}

enum sigio_split { SIGIO_ALONE, SIGIO_CHILD_OWNS, SIGIO_CHILD_WRITES, SIGIO_LATE };

/* with SIGIO_LATE: the file whose coming lets the pipe be written */
static const char *sigio_go;

/* SIG aimed at @pid by F_SETOWN on a pipe, raised by a write: whether it
 * arrived ("delivered", SIGKILL asked for) or not ("dropped"). With
 * @split, a child that became @uid aims it again after this process, or
 * writes the pipe in its place. */
static int sigio(pid_t pid, int sig, enum sigio_split split, uid_t uid)
{
	int child_writes = split == SIGIO_CHILD_WRITES || (split == SIGIO_LATE && uid);
	int p[2], arrived;

	if (pipe(p) || aim(p, pid, sig))
		return setup_failed("the pipe's owner");
	if (split == SIGIO_CHILD_OWNS && as_uid(uid, aim, p, pid, sig))
		return setup_failed("the child");
	if (split == SIGIO_LATE) {
		printf("aimed\n");
		fflush(stdout);
		for (int i = 0; i < 600 && access(sigio_go, F_OK); i++)
			usleep(50000);
		if (access(sigio_go, F_OK))
			return setup_failed(sigio_go);
	}
	if (child_writes ? as_uid(uid, raise_io, p, pid, sig) : raise_io(p, pid, sig))
		return setup_failed("writing the pipe");
	/* send_sigio() sends within the write: a delivered signal is
	 * pending now; the poll is a second look */
	arrived = sent(pid, sig);
	for (int i = 0; i < 20 && !arrived && !dead(pid); i++)
		usleep(50000);
	printf("%s: %s\n", op, arrived || dead(pid) ? "delivered" : "dropped");
	return 0;
}

static int sigio_flood(int n)
{
	struct rlimit rl = { n + 64, n + 64 };

	if (setrlimit(RLIMIT_NOFILE, &rl))
		return setup_failed("the descriptor limit");
	for (int i = 0; i < n; i++) {
		int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (fd < 0 || fcntl(fd, F_SETOWN, getpid()))
			return setup_failed("an owned file");
	}
	result(0);
	fflush(stdout);
	for (;;)
		pause();
}

static int trace(pid_t pid)
{
	int status, sig;

	if (ptrace(PTRACE_SEIZE, pid, NULL, NULL))
		return result(errno);
	while (waitpid(pid, &status, __WALL) == pid && WIFSTOPPED(status)) {
		sig = WSTOPSIG(status);
		ptrace(PTRACE_CONT, pid, NULL, (void *)(long)(sig == SIGTRAP ? 0 : sig));
	}
	return result(0);
}

/* fork; the child execs @argv, which is to call PTRACE_TRACEME itself
 * (traceme-self): the result is what the child's call got */
static int traceme(char **argv)
{
	int status;
	pid_t child = fork();

	if (child < 0)
		return setup_failed("fork");
	if (!child) {
		execv(argv[0], argv);
		_exit(99);
	}
	while (waitpid(child, &status, 0) == child && WIFSTOPPED(status))
		ptrace(PTRACE_DETACH, child, NULL, NULL);
	if (!WIFEXITED(status) || WEXITSTATUS(status) == 99)
		return setup_failed("the child");
	return result(WEXITSTATUS(status) > 100 ? WEXITSTATUS(status) - 100 : 0);
}

static int unix_socket(const char *path, int listen_side)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM, 0), c;

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	if (s < 0)
		return -1;
	if (!listen_side)
		return connect(s, (struct sockaddr *)&a, sizeof(a)) ? -1 : s;
	unlink(path);
	if (bind(s, (struct sockaddr *)&a, sizeof(a)) || listen(s, 1))
		return -1;
	puts("listening");
	fflush(stdout);
	c = accept(s, NULL, NULL);
	close(s);
	return c;
}

static int send_fd(const char *sock, const char *pin)
{
	char byte = 'x', cbuf[CMSG_SPACE(sizeof(int))] = {};
	struct iovec iov = { &byte, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	int fd = pinned(pin), s = unix_socket(sock, 0);

	if (s < 0)
		return setup_failed("connecting");
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return result(sendmsg(s, &m, 0) < 0 ? errno : 0);
}

static int recv_fd(const char *sock)
{
	char byte, cbuf[CMSG_SPACE(sizeof(int))] = {};
	struct iovec iov = { &byte, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	int s = unix_socket(sock, 1), fd;

	if (s < 0 || recvmsg(s, &m, 0) < 0)
		return setup_failed("receiving");
	c = CMSG_FIRSTHDR(&m);
	if (!c || c->cmsg_type != SCM_RIGHTS)
		return result(m.msg_flags & MSG_CTRUNC ? EPERM : ENOENT);
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return load_with_map(fd);
}

#define KEYCTL_GET_KEYRING_ID 0		/* include/uapi/linux/keyctl.h */
#define KEYCTL_JOIN_SESSION_KEYRING 1
#define KEYCTL_SESSION_TO_PARENT 18
#define KEY_SPEC_SESSION_KEYRING -3

static long session_keyring(void)
{
	return syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0);
}

/* Join a new session keyring (its id into @id) and give it to our parent:
 * 0 or the errno */
static int keyring_to_parent(long *id)
{
	*id = syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL);
	return *id < 0 || syscall(SYS_keyctl, KEYCTL_SESSION_TO_PARENT) ? errno : 0;
}

/* A child's end: @err through @fd to whoever reports it */
static void report_exit(int fd, int err)
{
	_exit(write(fd, &err, sizeof(err)) != sizeof(err));
}

/* The transfer happens as we return to user mode from waiting for the
 * child: every later system call sees the rebuilt credentials. */
static int session_to_parent(void)
{
	long before = session_keyring(), theirs;
	int fds[2], status;
	char host[65] = "";
	pid_t child;

	if (pipe(fds) || gethostname(host, sizeof(host) - 1))
		return setup_failed("pipe or gethostname");
	child = fork();
	if (child == 0) {
		int err = keyring_to_parent(&theirs);

		if (err) {
			result(err);
			fflush(stdout);
			_exit(1);
		}
		_exit(write(fds[1], &theirs, sizeof(theirs)) == sizeof(theirs) ? 0 : 3);
	}
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status))
		return setup_failed("the child");
	if (WEXITSTATUS(status))
		return WEXITSTATUS(status) - 1;
	if (read(fds[0], &theirs, sizeof(theirs)) != sizeof(theirs))
		return setup_failed("the child's keyring");
	if (session_keyring() != theirs || theirs == before) {
		errno = ESRCH;
		return setup_failed("our session keyring is not the child's");
	}
	result(0);
	op = "sethostname";
	return result(sethostname(host, strlen(host)) ? errno : 0);
}

/* the state letter of @pid in /proc/PID/stat ('S': asleep in the kernel) */
static char proc_state(pid_t pid)
{
	char path[64], buf[256], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] ? p[2] : 0;
}

/*
 * @n parents, each asleep in read() until we exit, each given a session
 * keyring by a child that waits for it to sleep: n replacements pending
 * at once, which the parents take only when they wake. Then one more by
 * a child of ours. "park-parents: ERRNO" of the first that failed (the
 * index on stderr), else that of the last.
 */
static int park_parents(int n)
{
	int release[2], report[2], err = 0;

	if (pipe(release) || pipe(report))
		return setup_failed("pipe");
	for (int i = 0; i <= n && !err; i++) {
		pid_t parent = i < n ? fork() : getpid();

		if (parent < 0)
			return setup_failed("fork");
		if (parent == 0) {
			char c;

			parent = getpid();
			if (fork() == 0) {
				long id;
				int t = 0;

				/* a parent gone (we were killed): give up */
				while (proc_state(parent) != 'S' && t++ < 10000)
					usleep(1000);
				report_exit(report[1], t > 10000 ? ETIMEDOUT : keyring_to_parent(&id));
			}
			close(release[1]);
			_exit(read(release[0], &c, 1) != 0);
		}
		if (i == n) {
			long id;
			pid_t child = fork();

			if (child == 0)
				report_exit(report[1], keyring_to_parent(&id));
			waitpid(child, NULL, 0);
		}
		if (read(report[0], &err, sizeof(err)) != sizeof(err))
			return setup_failed("a child's report");
		if (err)
			fprintf(stderr, "fcaps_tamper park-parents: parent %d of %d: %s\n",
				i + 1, n + 1, strerror(err));
	}
	return result(err);
}

static int drop_caps(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = {};

	return syscall(SYS_capset, &hdr, d);
}

int main(int argc, char **argv)
{
	int rc;

	if (argc > 1 && !strcmp(argv[1], "--nocaps")) {
		if (drop_caps()) {
			perror("fcaps_tamper: capset");
			return 3;
		}
		argv++;
		argc--;
	}
	if (argc > 1 && !strcmp(argv[1], "--userns")) {
		if (unshare(CLONE_NEWUSER)) {
			perror("fcaps_tamper: unshare(CLONE_NEWUSER)");
			return 3;
		}
		argv++;
		argc--;
	}
	if (argc < 2)
		goto usage;
	op = argv[1];
	rc = tamper_tty_op(op, argc, argv);
	if (rc < 0)
		rc = tamper_reuse_op(op, argc, argv);
	if (rc >= 0)
		return rc;
	if (!strcmp(op, "prog-load"))
		return prog_load();
	if (!strcmp(op, "personality-get")) {
		printf("%s: %08x\n", op, personality(0xffffffff));
		return 0;
	}
	if (!strcmp(op, "traceme-self"))
		return ptrace(PTRACE_TRACEME, 0, NULL, NULL) ? 100 + errno : 0;
	if (!strcmp(op, "session-to-parent"))
		return session_to_parent();
	/* AF_VSOCK, not built: request_module("net-pf-40") */
	if (!strcmp(op, "modreq"))
		return result(socket(40, SOCK_STREAM, 0) < 0 ? errno : 0);
	if (argc < 3)
		goto usage;
	if (!strcmp(op, "map-read"))
		return map_read(argv + 2);
	if (!strcmp(op, "map-update") || !strcmp(op, "fork-map-update") ||
	    !strcmp(op, "thread-map-update"))
		return map_update(argv[2], !strcmp(op, "fork-map-update"),
				  !strcmp(op, "thread-map-update"));
	if (!strcmp(op, "map-delete"))
		return map_delete(argv[2]);
	if (!strcmp(op, "map-freeze"))
		return result(bpf_map_freeze(pinned(argv[2])) ? errno : 0);
	if (!strcmp(op, "map-cmds"))
		return map_cmds(argv[2]);
	if (!strcmp(op, "mmap-write") || !strcmp(op, "mprotect") || !strcmp(op, "mmap-validate"))
		return map_mmap(argv[2], !strcmp(op, "mprotect"), !strcmp(op, "mmap-validate"));
	if (!strcmp(op, "map-pin"))
		return map_pin(argv[2]);
	if (!strcmp(op, "hold")) {
		result(0);
		fflush(stdout);
		sleep(atoi(argv[2]));
		return 0;
	}
	if (!strcmp(op, "prog-get"))
		return result(bpf_obj_get(argv[2]) < 0 ? errno : 0);
	if (!strcmp(op, "prog-with-map"))
		return load_with_map(pinned(argv[2]));
	if (!strcmp(op, "map-of-maps"))
		return map_of_maps(argv[2]);
	if (!strcmp(op, "pin-hold") && argc == 4) {
		pinned(argv[2]);
		result(0);
		fflush(stdout);
		sleep(atoi(argv[3]));
		return 0;
	}
	if (!strcmp(op, "link-detach") || !strcmp(op, "link-update"))
		return link_op(argv[2], !strcmp(op, "link-update"));
	if (!strcmp(op, "write") && argc == 4)
		return write_file(argv[2], argv[3]);
	if (!strcmp(op, "read"))
		return read_file(argv[2]);
	if (!strcmp(op, "personality") && argc >= 4) {
		if (personality(strtoul(argv[2], NULL, 16)) < 0)
			return setup_failed("personality");
		execv(argv[3], argv + 3);
		return setup_failed("exec");
	}
	if (!strcmp(op, "unlink"))
		return result(unlink(argv[2]) ? errno : 0);
	if (!strcmp(op, "sigio-owner") && argc == 5)
		return sigio(atoi(argv[2]), atoi(argv[3]), SIGIO_CHILD_OWNS, atoi(argv[4]));
	if (!strcmp(op, "sigio-late") && (argc == 5 || argc == 6)) {
		sigio_go = argv[4];
		return sigio(atoi(argv[2]), atoi(argv[3]), SIGIO_LATE, argc == 6 ? atoi(argv[5]) : 0);
	}
	if (!strcmp(op, "sigio-writer") && argc == 5)
		return sigio(atoi(argv[2]), atoi(argv[3]), SIGIO_CHILD_WRITES, atoi(argv[4]));
	if (!strcmp(op, "prlimit") || !strcmp(op, "prlimit-read") || !strcmp(op, "prlimit-rw"))
		return lower_limit(atoi(argv[2]), !strcmp(op, "prlimit") ? 1 :
				   !strcmp(op, "prlimit-rw") ? 2 : 0);
	if (!strcmp(op, "park-parents"))
		return park_parents(atoi(argv[2]));
	if (!strcmp(op, "signals"))
		return all_signals(atoi(argv[2]));
	if (!strcmp(op, "idmap-mount") && (argc == 5 || argc == 6))
		return idmap_mount(argv[2], argv[3], argv[4], argv[argc - 1]);
	if (!strcmp(op, "sigio") && argc == 4)
		return sigio(atoi(argv[2]), atoi(argv[3]), SIGIO_ALONE, 0);
	if (!strcmp(op, "sigio-flood") && argc == 3)
		return sigio_flood(atoi(argv[2]));
	if (!strcmp(op, "setns") && argc == 3) {
		char path[64];
		int fd;

		snprintf(path, sizeof(path), "/proc/%s/ns/user", argv[2]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return setup_failed(path);
		return result(setns(fd, CLONE_NEWUSER) ? errno : 0);
	}
	if (!strcmp(op, "sigio-ex") && argc == 5) {
		owner_type = !strcmp(argv[4], "tid") ? F_OWNER_TID :
			     !strcmp(argv[4], "pid") ? F_OWNER_PID :
			     !strcmp(argv[4], "pgrp") ? F_OWNER_PGRP : -1;
		if (owner_type < 0)
			goto usage;
		return sigio(atoi(argv[2]), atoi(argv[3]), SIGIO_ALONE, 0);
	}
	if (!strcmp(op, "traceme"))
		return traceme(argv + 2);
	if (!strcmp(op, "trace"))
		return trace(atoi(argv[2]));
	if (!strcmp(op, "send-fd") && argc == 4)
		return send_fd(argv[2], argv[3]);
	if (!strcmp(op, "recv-fd"))
		return recv_fd(argv[2]);
usage:
	fprintf(stderr, "usage: fcaps_tamper OP ARG... (see the source's head)\n");
	return 2;
}
