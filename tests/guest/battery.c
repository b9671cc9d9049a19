// SPDX-License-Identifier: GPL-2.0
/*
 * The capability battery (battery.h), run by fcaps_probe. Each operation
 * undoes what it did, or runs in a child that exits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <linux/bpf.h>
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/netlink.h>
#include "battery.h"

struct battery_args {
	pid_t victim;	/* a process of BATTERY_UID */
	pid_t root;	/* a plain root process */
	char tmp[64];	/* a file name of our own in BATTERY_RW */
};

/* 1 allowed, 0 refused, -errno otherwise (battery.h) */
static int outcome(int rc)
{
	if (rc >= 0)
		return 1;
	return errno == EPERM || errno == EACCES ? 0 : -errno;
}

/* a socket, kept only as long as the test needs it */
static int with_fd(int fd)
{
	int r = outcome(fd);

	if (fd >= 0)
		close(fd);
	return r;
}

static int op_net_bind(const struct battery_args *a)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(80) };
	int fd = socket(AF_INET, SOCK_STREAM, 0), r;

	(void)a;
	if (fd < 0)
		return -errno;
	r = outcome(bind(fd, (struct sockaddr *)&sin, sizeof(sin)));
	close(fd);
	return r;
}

static int op_net_raw(const struct battery_args *a)
{
	(void)a;
	return with_fd(socket(AF_INET, SOCK_RAW, IPPROTO_ICMP));
}

/* to the owner it already has: only who may chown is tested */
static int op_chown(const struct battery_args *a)
{
	(void)a;
	return outcome(chown(BATTERY_LOCKED, BATTERY_UID, BATTERY_UID));
}

/* write, not read: CAP_DAC_READ_SEARCH would also open it for reading */
static int op_dac_write(const struct battery_args *a)
{
	(void)a;
	return with_fd(open(BATTERY_LOCKED, O_WRONLY));
}

static int op_fowner(const struct battery_args *a)
{
	(void)a;
	return outcome(chmod(BATTERY_LOCKED, 0));
}

static int op_kill(const struct battery_args *a)
{
	return outcome(kill(a->victim, 0));
}

static int op_rlimit(const struct battery_args *a)
{
	struct rlimit old, raised;
	int r;

	(void)a;
	if (getrlimit(RLIMIT_NOFILE, &old))
		return -errno;
	raised = old;
	raised.rlim_max++;
	r = outcome(setrlimit(RLIMIT_NOFILE, &raised));
	if (r == 1)
		setrlimit(RLIMIT_NOFILE, &old);
	return r;
}

static int op_mknod(const struct battery_args *a)
{
	int r = outcome(mknod(a->tmp, S_IFCHR | 0600, makedev(1, 3)));

	if (r == 1)
		unlink(a->tmp);
	return r;
}

/* a v2 value with empty sets: valid on every kernel, grants nothing */
static int op_setfcap(const struct battery_args *a)
{
	__le32 v[5] = { VFS_CAP_REVISION_2 };
	int fd = open(a->tmp, O_CREAT | O_EXCL | O_WRONLY, 0600), r;

	if (fd < 0)
		return -errno;
	r = outcome(fsetxattr(fd, "security.capability", v, sizeof(v), 0));
	close(fd);
	unlink(a->tmp);
	return r;
}

static int op_bpf_map(const struct battery_args *a)
{
	union bpf_attr attr;

	(void)a;
	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = 4;
	attr.value_size = 4;
	attr.max_entries = 1;
	return with_fd((int)syscall(SYS_bpf, BPF_MAP_CREATE, &attr, sizeof(attr)));
}

/* append-only on and off again, on a file of our own (tmpfs has flags) */
static int op_immutable(const struct battery_args *a)
{
	int fd = open(a->tmp, O_CREAT | O_EXCL | O_RDONLY, 0600), flags, r;

	if (fd < 0)
		return -errno;
	if (ioctl(fd, FS_IOC_GETFLAGS, &flags)) {
		r = -errno;
	} else {
		flags |= FS_APPEND_FL;
		r = outcome(ioctl(fd, FS_IOC_SETFLAGS, &flags));
		flags &= ~FS_APPEND_FL;
		if (r == 1)
			ioctl(fd, FS_IOC_SETFLAGS, &flags);
	}
	close(fd);
	unlink(a->tmp);
	return r;
}

/* the name it already has */
static int op_sethostname(const struct battery_args *a)
{
	char name[65] = "";

	(void)a;
	if (gethostname(name, sizeof(name) - 1))
		return -errno;
	return outcome(sethostname(name, strlen(name)));
}

/* the time it already is */
static int op_settime(const struct battery_args *a)
{
	struct timespec now;

	(void)a;
	clock_gettime(CLOCK_REALTIME, &now);
	return outcome(clock_settime(CLOCK_REALTIME, &now));
}

/* a netlink audit socket needs audit built in; sending a user message
 * through it is what CAP_AUDIT_WRITE decides */
static int op_audit_write(const struct battery_args *a)
{
	struct {
		struct nlmsghdr h;
		char text[32];
	} m = { .h = { .nlmsg_len = NLMSG_LENGTH(sizeof(m.text)), .nlmsg_type = 1107,
		       .nlmsg_flags = NLM_F_REQUEST } };
	struct sockaddr_nl k = { .nl_family = AF_NETLINK };
	int fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_AUDIT), r;

	(void)a;
	if (fd < 0)
		return -errno;
	snprintf(m.text, sizeof(m.text), "fcaps battery");
	r = outcome((int)sendto(fd, &m, m.h.nlmsg_len, 0, (struct sockaddr *)&k, sizeof(k)));
	close(fd);
	return r;
}

/* a page at @addr: below vm.mmap_min_addr, CAP_SYS_RAWIO (battery.h). The
 * system call itself: musl's mmap() turns the EPERM of an anonymous map at
 * NULL into ENOMEM. */
int battery_map_at(unsigned long addr)
{
	void *p = (void *)syscall(SYS_mmap, addr, 4096, PROT_READ,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	if (p == MAP_FAILED)
		return outcome(-1);
	munmap(p, 4096);
	/* a kernel that took the address as a hint */
	return p == (void *)addr ? 1 : -EADDRNOTAVAIL;
}

/* page 0 (vm.mmap_min_addr is 4096 in the guest) */
static int op_mmap_low(const struct battery_args *a)
{
	(void)a;
	return battery_map_at(0);
}

/* a seized tracee is released when we exit; seizing does not stop it */
static int op_ptrace(const struct battery_args *a)
{
	return outcome((int)ptrace(PTRACE_SEIZE, a->root, 0, 0));
}

static int op_nice(const struct battery_args *a)
{
	(void)a;
	return outcome(setpriority(PRIO_PROCESS, 0, -1));
}

/* with RLIMIT_MEMLOCK 0 only CAP_IPC_LOCK may lock a page */
static int op_mlock(const struct battery_args *a)
{
	static char page[4096] __attribute__((aligned(4096)));
	struct rlimit none = { 0, 0 };

	(void)a;
	if (setrlimit(RLIMIT_MEMLOCK, &none))
		return -errno;
	return outcome(mlock(page, sizeof(page)));
}

static int op_chroot(const struct battery_args *a)
{
	(void)a;
	return outcome(chroot("/"));
}

static int op_setgid(const struct battery_args *a)
{
	(void)a;
	return outcome(setresgid(BATTERY_UID, BATTERY_UID, BATTERY_UID));
}

static int op_setuid(const struct battery_args *a)
{
	(void)a;
	return outcome(setresuid(BATTERY_UID, BATTERY_UID, BATTERY_UID));
}

#define IS_self(x) x
#define IS_child(x) !(x)
#define RUN(name, cap, alt, where)					\
	if (IS_##where(self))						\
		printf(" %sbat_" #name "=%d", prefix, op_##name(a));

static void run_part(const char *prefix, const struct battery_args *a, int self)
{
	FCAPS_BATTERY(RUN)
}

/* Print " PREFIXbat_NAME=OUTCOME" for every operation, then a newline. */
void run_battery(const char *prefix, pid_t victim, pid_t root)
{
	struct battery_args a = { victim, root };
	int status;
	pid_t pid;

	snprintf(a.tmp, sizeof(a.tmp), BATTERY_RW "/%d", getpid());
	run_part(prefix, &a, 1);
	fflush(stdout);
	pid = fork();
	if (pid > 0)
		printf(" %sbat_child=%d", prefix, pid);
	if (pid == 0) {
		run_part(prefix, &a, 0);
		printf("\n");
		fflush(stdout);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		printf(" %sbat_child_errno=%d\n", prefix, pid < 0 ? errno : 0);
	fflush(stdout);
}
