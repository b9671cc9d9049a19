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
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "capfile.h"
#include "filekey.h"
#include "scan.h"
#include "walk.h"

#define WARN_MAX 10	/* warnings printed a scan; the rest only counted */

/* The files held open, by key (open addressing): one found again, by a
 * hard link a user made, is not held twice */
struct held_set {
	struct fcaps_file_key *keys;
	unsigned char *used;
	size_t n, cap;
};

struct scan {
	struct walk w;
	struct policy *into;
	struct fs_seen fs;
	struct held_set held;
	unsigned long skipped;
};

static size_t slot_of(const struct held_set *h, const struct fcaps_file_key *k)
{
	size_t i = (size_t)((k->ino ^ ((__u64)k->dev << 32)) * 0x9e3779b97f4a7c15ULL) & (h->cap - 1);

	while (h->used[i] && memcmp(&h->keys[i], k, sizeof(*k)))
		i = (i + 1) & (h->cap - 1);
	return i;
}

/* 1 added, 0 there already, -1 out of memory */
static int held_add(struct held_set *h, const struct fcaps_file_key *k)
{
	size_t i;

	if (2 * (h->n + 1) > h->cap) {
		struct held_set g = { .cap = h->cap ? 2 * h->cap : 64 };

		g.keys = calloc(g.cap, sizeof(*g.keys));
		g.used = calloc(g.cap, 1);
		if (!g.keys || !g.used) {
			free(g.keys);
			free(g.used);
			return -1;
		}
		for (size_t j = 0; j < h->cap; j++)
			if (h->used[j]) {
				i = slot_of(&g, &h->keys[j]);
				g.keys[i] = h->keys[j];
				g.used[i] = 1;
			}
		g.n = h->n;
		free(h->keys);
		free(h->used);
		*h = g;
	}
	i = slot_of(h, k);
	if (h->used[i])
		return 0;
	h->keys[i] = *k;
	h->used[i] = 1;
	h->n++;
	return 1;
}

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
	rc = fcaps_policy_is_legacy(&e.value) ? held_add(&s->held, &e.key) : 0;
	if (rc <= 0)
		close(fd);
	if (rc < 0 || (rc > 0 && policy_hold(s->into, fd)))
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

	/* a descriptor a file with a legacy value, held until it is written */
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
	free(s.held.keys);
	free(s.held.used);
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
