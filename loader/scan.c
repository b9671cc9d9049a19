// SPDX-License-Identifier: GPL-2.0
/*
 * policy scan: every file under a directory whose security.capability
 * value BPF must know, found by a walk (walk.c) that an unprivileged user
 * who owns part of the tree cannot turn against the loader.
 *
 * What a user can do to the tree while it is walked (a file gone, a FIFO
 * or a socket renamed in, a directory moved away, an entry root may not
 * stat on a user's FUSE mount) skips that file or subtree, counted and
 * warned of; a value that cannot be read fails the scan, so that no
 * capped file is left out unseen.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "capfile.h"
#include "filekey.h"
#include "scan.h"
#include "walk.h"

#define WARN_MAX 10	/* warnings printed a scan; the rest only counted */

struct scan {
	struct walk w;
	struct policy *into;
	struct fs_seen fs;
	unsigned long skipped;
};

#define scan_of(w) ((struct scan *)((char *)(w) - offsetof(struct scan, w)))

static void skip(struct walk *w, const char *path, const char *why)
{
	if (scan_of(w)->skipped++ < WARN_MAX)
		fprintf(stderr, "fcapsctl: scan: skipped %s: %s\n", path, why);
}

static void failure(struct walk *w, const char *path, const char *why)
{
	fprintf(stderr, "fcapsctl: scan: %s: %s\n", path, why);
	w->failed = 1;
}

/* One regular file: its key and value from one open, never through a link */
static void scan_file(struct walk *w, int dirfd, const char *name, const char *path)
{
	struct scan *s = scan_of(w);
	struct policy_entry e = {};
	__u8 buf[FCAPS_MAX_SIZE];
	char fdpath[64];
	struct stat st;
	__u32 len;
	int rc, fd;

	/* nonblocking: a FIFO renamed in after the stat does not stall the
	 * scan; O_PATH where a read open is refused (O_NOATIME, a lease) */
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_NOATIME |
		    O_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EPERM || errno == EWOULDBLOCK))
		fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT || errno == ELOOP || errno == ENXIO)
			skip(w, path, "gone or replaced by a link or a socket while scanned");
		else
			failure(w, path, strerror(errno));
		return;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		skip(w, path, "no longer a regular file");
		close(fd);
		return;
	}
	rc = policy_key_fd(fd, NULL, &e.key, &s->fs);
	if (!rc) {
		rc = fcaps_read_fd(fd, buf, &len);
		if (rc == -EBADF) {	/* an O_PATH descriptor */
			snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
			rc = fcaps_read_file(fdpath, buf, &len);
		}
	}
	if (rc == -ENODATA || rc == -ENOTSUP) {
		close(fd);
		return;
	}
	if (rc == -EINVAL) {
		/* 6.1 shows no such value; its exec fails with EINVAL too */
		len = FCAPS_LEN_UNREADABLE;
		memset(buf, 0, sizeof(buf));
		rc = 0;
	}
	if (rc) {
		close(fd);
		failure(w, path, rc == -EXDEV ? policy_key_error(rc) : strerror(-rc));
		return;
	}
	/* every value, as the sync programs keep every value */
	e.value.len = len;
	memcpy(e.value.value, buf, sizeof(buf));
	snprintf(e.path, sizeof(e.path), "%s", path);
	if (!fcaps_policy_is_legacy(&e.value))
		close(fd);
	else if (policy_hold(s->into, fd))
		failure(w, path, "out of memory");
	if (policy_append(s->into, &e))
		failure(w, path, "out of memory");
}

int policy_scan_dir(const char *dir, struct policy *p)
{
	struct scan s = { .w = { .file = scan_file, .skip = skip, .fail = failure },
			  .into = p, .fs = { .dev = (dev_t)-1 } };
	struct rlimit rl;
	int fd;

	/* a descriptor a legacy value found, held until it is written */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	fd = open_named(dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		fprintf(stderr, "fcapsctl: scan: %s: %s\n", dir, policy_key_error(fd));
		return -1;
	}
	walk_tree(&s.w, fd, dir);
	close(fd);
	if (s.skipped)
		fprintf(stderr, "fcapsctl: scan: %s: %lu entries skipped (%s)\n", dir, s.skipped,
			"changed while scanned, or refused to root");
	if (s.w.failed) {
		fprintf(stderr, "fcapsctl: scan: %s: a value could not be read, or a directory listed\n",
			dir);
		return -1;
	}
	return 0;
}
