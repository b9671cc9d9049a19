// SPDX-License-Identifier: GPL-2.0
/*
 * fcaps_tamper's ops on kernel objects freed and reused. BPF keys state by
 * an object's address or number, so it must see each free, and before the
 * address or number can be handed out again:
 * - a user namespace whose last reference was a nested namespace's is
 *   freed with it, in free_user_ns()'s loop, with no __put_user_ns() of
 *   its own (the marks, SIGIO owners);
 * - a superblock gives its device number back when it is killed, and
 *   6.12 frees it later, from a work item (the policy's entries).
 *
 *   nest            a child enters a namespace NS1 ("ns1: PID": map root
 *                   there) and leaves a child in a namespace nested in it,
 *                   which outlives it: "nest: ok" once NS1 is freed, in
 *                   free_user_ns()'s loop
 *   sigio-nsreuse   SIGKILL aimed with F_SETOWN by the root of a namespace
 *                   NS1 whose pP lacks cap_net_raw (it keeps CAP_KILL) at a
 *                   process that, once NS1 is freed in that loop, enters a
 *                   new namespace (the slab hands NS1's address back first)
 *                   with a full pP. The owner holds CAP_KILL in NS1 alone:
 *                   "dropped", unless the new namespace is taken for NS1.
 *   sb-reuse DIR REF  unmount the tmpfs on DIR, mount a new one there at
 *                   once, copy the probe to DIR/p and give it REF's
 *                   security.capability, all before the old superblock's
 *                   freeing work can run: "sb-reuse: ok"
 * - a file's SIGIO owner holds the owner's credentials (the kernel path),
 *   and with them its user namespace, until the next F_SETOWN or the end
 *   of the file:
 *   fowner-leak N   N times, a child enters a namespace of its own, aims a
 *                   pipe's SIGIO at itself twice and exits; then one more
 *                   namespace, which a limit on namespaces (below N) lets
 *                   it make only if those were all freed: "fowner-leak: ok"
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/xattr.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "copy_file.h"
#include "tamper_tty.h"
#include "tamper_reuse.h"

/* fork a child that enters a namespace nested in ours, waits for @life_rd
 * to close and then lives on two seconds: its pid, or -1 */
static pid_t nested_child(int life_rd, int life_wr)
{
	int ready[2];
	pid_t child;
	char c;

	if (pipe(ready))
		return -1;
	child = fork();
	if (!child) {
		close(ready[0]);
		close(life_wr);
		if (unshare(CLONE_NEWUSER) || write(ready[1], "r", 1) != 1)
			_exit(3);
		while (read(life_rd, &c, 1) > 0)
			;
		/* until our parent's credentials are gone, two grace periods
		 * after it is reaped: ours then hold NS1 last */
		sleep(2);
		_exit(0);
	}
	close(ready[1]);
	if (child < 0 || read(ready[0], &c, 1) != 1)
		child = -1;
	close(ready[0]);
	return child;
}

/* drop cap_net_raw from pE and pP, keep the rest (CAP_KILL) */
static int drop_net_raw(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -1;
	d[0].effective &= ~(1u << CAP_NET_RAW);
	d[0].permitted &= ~(1u << CAP_NET_RAW);
	return syscall(SYS_capset, &h, d);
}

/* The SIGIO owner in NS1: F_SETOWN of @fd at @target */
struct owner_arg {
	int fd;
	pid_t target;
};

static int aim_from_ns1(const struct owner_arg *o)
{
	return drop_net_raw() || fcntl(o->fd, F_SETOWN, o->target) ||
	       fcntl(o->fd, F_SETSIG, SIGKILL) || fcntl(o->fd, F_SETFL, O_ASYNC | O_NONBLOCK);
}

/* whether /proc/self/gid_map has a line yet, within 10 s */
static int mapped(void)
{
	char buf[64];

	for (int i = 0; i < 200; i++) {
		int fd = open("/proc/self/gid_map", O_RDONLY);
		ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf));

		close(fd);
		if (n > 0)
			return 1;
		usleep(50000);
	}
	return 0;
}

/* root of @pid's namespace mapped to root: the nested namespace's creator
 * needs an id there (a parent's write, with CAP_SETFCAP) */
static int map_root(pid_t pid)
{
	static const char *const maps[] = { "uid_map", "gid_map" };
	char path[64];

	for (int i = 0; i < 2; i++) {
		int fd, ok;

		snprintf(path, sizeof(path), "/proc/%d/%s", pid, maps[i]);
		fd = open(path, O_WRONLY);
		ok = fd >= 0 && write(fd, "0 0 1", 5) == 5;
		close(fd);
		if (!ok)
			return -1;
	}
	return 0;
}

/*
 * A child enters NS1 (a capped caller's child marks it), waits for root to
 * be mapped there (by us with @map, or by whoever reads "ns1: PID"),
 * leaves a nested child in NS2, runs @aim (if any) and exits; the nested
 * child goes two seconds later, NS1's last reference with it. We reap both
 * (subreaper): 0 once they are gone, after the grace period and the work
 * item that free NS2 and, in its loop, NS1.
 */
static int ns1_freed_by_nested(const struct owner_arg *aim, int map)
{
	int report[2], status;
	pid_t a, inner;
	char c;

	if (prctl(PR_SET_CHILD_SUBREAPER, 1) || pipe(report))
		return -1;
	a = fork();
	if (!a) {
		int life[2];

		if (unshare(CLONE_NEWUSER) || write(report[1], "u", 1) != 1 || !mapped() ||
		    pipe(life))
			_exit(3);
		inner = nested_child(life[0], life[1]);
		close(life[0]);
		if (inner < 0 || write(report[1], &inner, sizeof(inner)) != sizeof(inner) ||
		    (aim && aim_from_ns1(aim)))
			_exit(3);
		_exit(0);	/* life[1] closes: the nested child follows */
	}
	/* EOF, not a hang, if the child fails before it reports */
	close(report[1]);
	if (a < 0 || read(report[0], &c, 1) != 1)
		return -1;
	if (map ? map_root(a) : (printf("ns1: %d\n", a) < 0 || fflush(stdout)))
		return -1;
	if (waitpid(a, &status, 0) != a || !WIFEXITED(status) || WEXITSTATUS(status) ||
	    read(report[0], &inner, sizeof(inner)) != sizeof(inner) ||
	    waitpid(inner, &status, 0) != inner || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	sleep(1);	/* an RCU grace period, then the work item */
	return 0;
}

static int nest(void)
{
	if (ns1_freed_by_nested(NULL, 0))
		return tamper_setup_failed("nest", "the namespaces");
	return tamper_result("nest", 0);
}

/* @target ended, on a setup failure: @rc */
static int end_target(pid_t target, int rc)
{
	int status;

	kill(target, SIGKILL);
	waitpid(target, &status, 0);
	return rc;
}

static int sigio_nsreuse(void)
{
	const char *op = "sigio-nsreuse";
	int p[2], go[2], ready[2], status, killed = 0;
	struct owner_arg aim;
	pid_t target;
	char c;

	if (pipe(p) || pipe(go) || pipe(ready))
		return tamper_setup_failed(op, "pipes");
	target = fork();
	if (!target) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1 || unshare(CLONE_NEWUSER) ||
		    write(ready[1], "r", 1) != 1)
			_exit(3);
		for (;;)
			pause();
	}
	aim = (struct owner_arg){ p[0], target };
	if (target < 0)
		return tamper_setup_failed(op, "fork");
	close(ready[1]);
	if (ns1_freed_by_nested(&aim, 1))
		return end_target(target, tamper_setup_failed(op, "the owner in its namespace"));
	if (write(go[1], "g", 1) != 1 || read(ready[0], &c, 1) != 1)
		return end_target(target, tamper_setup_failed(op, "the target's namespace"));
	/* send_sigio() decides within the write: a SIGTERM after it finds
	 * the target dying of SIGKILL if that was delivered */
	if (write(p[1], "x", 1) != 1)
		return end_target(target, tamper_setup_failed(op, "writing the pipe"));
	kill(target, SIGTERM);
	if (waitpid(target, &status, 0) != target || !WIFSIGNALED(status))
		return tamper_setup_failed(op, "the target's end");
	killed = WTERMSIG(status) == SIGKILL;
	printf("%s: %s\n", op, killed ? "delivered" : "dropped");
	return 0;
}

static int sb_reuse(const char *dir, const char *ref)
{
	const char *op = "sb-reuse";
	char value[64], path[4096];
	ssize_t len = getxattr(ref, "security.capability", value, sizeof(value));

	snprintf(path, sizeof(path), "%s/p", dir);
	if (len < 0)
		return tamper_setup_failed(op, ref);
	if (umount2(dir, 0) || mount("sb", dir, "tmpfs", 0, NULL))
		return tamper_setup_failed(op, "the remount");
	if (copy_file("/usr/local/bin/fcaps_probe", path) ||
	    setxattr(path, "security.capability", value, len, 0))
		return tamper_setup_failed(op, path);
	return tamper_result(op, 0);
}

/* a namespace in a child: 0 or its errno */
static int userns_child(int aim_twice)
{
	int p[2], status;
	pid_t child = fork();

	if (!child) {
		if (unshare(CLONE_NEWUSER))
			_exit(errno);
		if (aim_twice && (pipe(p) || fcntl(p[0], F_SETOWN, getpid()) ||
				  fcntl(p[0], F_SETOWN, getpid())))
			_exit(255);
		_exit(0);
	}
	if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status))
		return 255;
	return WEXITSTATUS(status);
}

static int fowner_leak(int n)
{
	const char *op = "fowner-leak";
	int rc = 0;

	for (int i = 0; i < n; i++) {
		rc = userns_child(1);
		/* ENOSPC: the last ones are not freed yet (RCU, then a work item) */
		if (rc && rc != ENOSPC)
			return tamper_setup_failed(op, "a child's namespace");
	}
	for (int i = 0; i < 30 && (rc = userns_child(0)) == ENOSPC; i++)
		usleep(100000);
	return tamper_result(op, rc);
}

int tamper_reuse_op(const char *op, int argc, char **argv)
{
	if (!strcmp(op, "nest") && argc == 2)
		return nest();
	if (!strcmp(op, "sigio-nsreuse") && argc == 2)
		return sigio_nsreuse();
	if (!strcmp(op, "sb-reuse") && argc == 4)
		return sb_reuse(argv[2], argv[3]);
	if (!strcmp(op, "fowner-leak") && argc == 3)
		return fowner_leak(atoi(argv[2]));
	return -1;
}
