// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "capfile.h"
#include "policy.h"

#define FCAPS_HEX_MAX 64

__u32 kernel_dev(dev_t st_dev)
{
	return (major(st_dev) << 20) | minor(st_dev);
}

unsigned int kdev_major(__u32 kdev)
{
	return kdev >> 20;
}

unsigned int kdev_minor(__u32 kdev)
{
	return kdev & ((1U << 20) - 1);
}

/*
 * st_dev is not always the s_dev the kernel keys files by (btrfs
 * subvolumes, overlayfs without xino): take it from the mount instead,
 * whose major:minor in mountinfo is its superblock's s_dev.
 */
static int mount_sdev(__u64 mnt_id, __u32 *kdev)
{
	static struct { __u64 id; __u32 dev; } *mounts;
	static size_t nmounts;
	unsigned long long id;
	unsigned int maj, min;
	char line[4096];

	for (int pass = 0; pass < 2; pass++) {
		FILE *f;

		for (size_t i = 0; i < nmounts; i++) {
			if (mounts[i].id == mnt_id) {
				*kdev = mounts[i].dev;
				return 0;
			}
		}
		if (pass)
			break;
		/* not seen yet: (re)read the mount table */
		f = fopen("/proc/self/mountinfo", "r");
		if (!f)
			return -errno;
		nmounts = 0;
		while (fgets(line, sizeof(line), f)) {
			void *m;

			if (sscanf(line, "%llu %*u %u:%u", &id, &maj, &min) != 3)
				continue;
			m = realloc(mounts, (nmounts + 1) * sizeof(*mounts));
			if (!m)
				break;
			mounts = m;
			mounts[nmounts].id = id;
			mounts[nmounts++].dev = (maj << 20) | min;
		}
		fclose(f);
	}
	return -ENOENT;
}

#define OVERLAYFS_SUPER_MAGIC 0x794c7630

/*
 * Key of the file open as @fd (O_PATH will do): -EXDEV on an overlay,
 * whose inodes the BPF side keys by the layer they come from, which
 * userspace cannot name; -errno otherwise. @st, when given, must be the
 * same file (dev and inode), or -ESTALE: it was replaced meanwhile.
 * @fs, when given, remembers the filesystem type of the last device seen,
 * so that a scan asks it once a device; it lives for one scan, whose open
 * directories keep the filesystems it walks mounted (a device number
 * reused later by an overlay is asked again).
 */
struct fs_seen {
	dev_t dev;
	long type;
};

static int policy_key_fd(int fd, const struct stat *st, struct fcaps_file_key *key,
			 struct fs_seen *fs)
{
	struct fs_seen here;
	struct statx stx;
	struct statfs sfs;
	dev_t dev;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_INO | STATX_MNT_ID, &stx))
		return -errno;
	dev = makedev(stx.stx_dev_major, stx.stx_dev_minor);
	if (!fs || fs->dev != dev) {
		if (fstatfs(fd, &sfs))
			return -errno;
		here.dev = dev;
		here.type = sfs.f_type;
		if (fs)
			*fs = here;
	} else {
		here = *fs;
	}
	if (here.type == OVERLAYFS_SUPER_MAGIC)
		return -EXDEV;
	if (st && (stx.stx_ino != st->st_ino || dev != st->st_dev))
		return -ESTALE;
	memset(key, 0, sizeof(*key));
	key->ino = stx.stx_ino;
	if (!(stx.stx_mask & STATX_MNT_ID) || mount_sdev(stx.stx_mnt_id, &key->dev))
		key->dev = kernel_dev(makedev(stx.stx_dev_major, stx.stx_dev_minor));
	return 0;
}

int policy_key(const char *path, struct fcaps_file_key *key)
{
	int fd = open(path, O_PATH | O_CLOEXEC), rc;

	if (fd < 0)
		return -errno;
	rc = policy_key_fd(fd, NULL, key, NULL);
	close(fd);
	return rc;
}

const char *policy_key_error(int rc)
{
	return rc == -EXDEV ? "on an overlay: give its layers (the BPF side keys an overlay's "
			      "files by the layer the kernel reads them from)" : strerror(-rc);
}

static int append(struct policy *p, const struct policy_entry *e)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;
		struct policy_entry *v = realloc(p->v, cap * sizeof(*v));

		if (!v)
			return -1;
		p->v = v;
		p->cap = cap;
	}
	p->v[p->n++] = *e;
	return 0;
}

static const struct policy *sorting;

/* by key, then by position: the last of a run of equal keys is the newest */
static int by_key_then_index(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int c = memcmp(&sorting->v[i].key, &sorting->v[j].key, sizeof(struct fcaps_file_key));

	return c ? c : (i > j) - (i < j);
}

/* Keep one entry per file, the last one given (sort, not a quadratic scan:
 * policy files of 100,000 lines are imported). */
static int dedupe(struct policy *p)
{
	size_t *idx = malloc(p->n * sizeof(*idx) + 1), n = 0;
	char *keep = calloc(p->n + 1, 1);

	if (!idx || !keep) {
		free(idx);
		free(keep);
		return -1;
	}
	for (size_t i = 0; i < p->n; i++)
		idx[i] = i;
	sorting = p;
	qsort(idx, p->n, sizeof(*idx), by_key_then_index);
	for (size_t i = 0; i < p->n; i++)
		if (i + 1 == p->n || memcmp(&p->v[idx[i]].key, &p->v[idx[i + 1]].key,
					    sizeof(struct fcaps_file_key)))
			keep[idx[i]] = 1;
	for (size_t i = 0; i < p->n; i++)
		if (keep[i])
			p->v[n++] = p->v[i];
	p->n = n;
	free(idx);
	free(keep);
	return 0;
}

/*
 * Any value the attribute can hold, empty included (6.1's own formats get
 * 6.1's rules); values longer than FCAPS_MAX_SIZE keep their first bytes.
 */
static int parse_hex(const char *hex, struct fcaps_policy_value *v)
{
	size_t len = strcspn(hex, " \t");

	if (hex[len] || len % 2 || len / 2 > FCAPS_HEX_MAX)
		return -1;
	for (size_t i = 0; i < len / 2; i++) {
		unsigned int b;

		if (!isxdigit(hex[2 * i]) || !isxdigit(hex[2 * i + 1]) ||
		    sscanf(hex + 2 * i, "%2x", &b) != 1)
			return -1;
		if (i < FCAPS_MAX_SIZE)
			v->value[i] = b;
	}
	v->len = len / 2;
	return 0;
}

int policy_add_text(struct policy *p, const char *path, const char *text,
		    char *err, size_t errlen)
{
	struct policy_entry e = {};
	struct fcaps_sets sets;
	__u32 tag = 0;
	int rc;

	rc = policy_key(path, &e.key);
	if (rc) {
		snprintf(err, errlen, "%s: %s", path, policy_key_error(rc));
		return -1;
	}
	snprintf(e.path, sizeof(e.path), "%s", path);
	while (isspace((unsigned char)*text))
		text++;
	if (!strncmp(text, "hex:", 4)) {
		if (parse_hex(text + 4, &e.value)) {
			snprintf(err, errlen, "'%s' is not hex:BYTES of 0 to %d bytes",
				 text, FCAPS_HEX_MAX);
			return -1;
		}
		return append(p, &e);
	}
	if (!strncmp(text, "v1 ", 3) || !strncmp(text, "v3 ", 3)) {
		tag = text[1] == '1' ? FCAPS_V1_TAG : FCAPS_V3_TAG;
		text += 3;
	}
	if (fcaps_sets_from_text(text, &sets, err, errlen))
		return -1;
	if (!tag)
		tag = ((sets.effective | sets.permitted | sets.inheritable) >> 32) ?
		      FCAPS_V3_TAG : FCAPS_V1_TAG;
	if (tag == FCAPS_V1_TAG && ((sets.effective | sets.permitted | sets.inheritable) >> 32)) {
		snprintf(err, errlen, "v1 names capabilities 0-31 only");
		return -1;
	}
	e.value.len = fcaps_encode(&sets, tag, e.value.value);
	return append(p, &e);
}

#define POLICY_LINE_MAX 4096

int policy_parse_file(const char *file, struct policy *p)
{
	struct policy tmp = {};
	char *line = NULL, err[512];
	size_t cap = 0;
	ssize_t len;
	int lineno = 0, bad = 0;
	FILE *f = fopen(file, "r");
	struct stat st;

	if (!f || fstat(fileno(f), &st)) {
		fprintf(stderr, "%s: %s\n", file, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		fprintf(stderr, "%s: not a regular file\n", file);
		fclose(f);
		return -1;
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		char *s = line, *path, *rest;

		lineno++;
		if (len > POLICY_LINE_MAX || memchr(line, 0, len)) {
			fprintf(stderr, "%s:%d: %s\n", file, lineno, len > POLICY_LINE_MAX ?
				"line longer than 4096 bytes" : "binary data (a NUL byte)");
			bad = 1;
			break;
		}
		s[strcspn(s, "\n")] = 0;
		while (isspace((unsigned char)*s))
			s++;
		if (!*s || *s == '#')
			continue;
		path = s;
		rest = s + strcspn(s, " \t");
		if (!*rest) {
			fprintf(stderr, "%s:%d: want 'PATH CAPTEXT', got '%s'\n", file, lineno, s);
			bad = 1;
			continue;
		}
		*rest++ = 0;
		if (policy_add_text(&tmp, path, rest, err, sizeof(err))) {
			fprintf(stderr, "%s:%d: %s\n", file, lineno, err);
			bad = 1;
		}
	}
	if (ferror(f)) {
		fprintf(stderr, "%s: reading: %s\n", file, strerror(errno));
		bad = 1;
	}
	free(line);
	fclose(f);
	for (size_t i = 0; !bad && i < tmp.n; i++)
		bad = append(p, &tmp.v[i]) != 0;
	policy_free(&tmp);
	if (bad)
		return -1;
	return dedupe(p);
}

static struct policy *scan_into;
static int scan_failed;
static struct fs_seen scan_fs;

/*
 * One file of a scan: its value and its key from one open of the file nftw
 * saw, never followed through a link, so that a path swapped meanwhile
 * cannot pair one file's value with another's key. A file gone or replaced
 * during the scan is skipped: it is not there to decide anything.
 */
static int scan_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	struct policy_entry e = {};
	__u8 buf[FCAPS_MAX_SIZE];
	char fdpath[64];
	__u32 len;
	int rc, fd;

	(void)ftw;
	if (type != FTW_F || !S_ISREG(st->st_mode))
		return 0;
	/*
	 * Opened for reading, the value is one fgetxattr(). Nonblocking, so a
	 * FIFO renamed in after nftw's stat does not stall the scan; refused
	 * (not the owner, for O_NOATIME; a lease), O_PATH and its /proc path.
	 */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_NOATIME | O_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EPERM || errno == EWOULDBLOCK))
		fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && (errno == ENOENT || errno == ELOOP))
		return 0;
	if (fd < 0) {
		fprintf(stderr, "scan: %s: %s\n", path, strerror(errno));
		scan_failed = 1;
		return 0;
	}
	rc = policy_key_fd(fd, st, &e.key, &scan_fs);
	if (rc == -ESTALE) {
		close(fd);
		return 0;
	}
	if (!rc) {
		rc = fcaps_read_fd(fd, buf, &len);
		if (rc == -EBADF) {	/* an O_PATH descriptor */
			snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
			rc = fcaps_read_file(fdpath, buf, &len);
		}
	}
	close(fd);
	if (rc == -ENODATA || rc == -ENOTSUP || rc == -ENOENT)
		return 0;
	if (rc == -EINVAL) {
		/* 6.1 shows no such value; its exec fails with EINVAL too */
		len = FCAPS_LEN_UNREADABLE;
		memset(buf, 0, sizeof(buf));
		rc = 0;
	}
	if (rc) {
		fprintf(stderr, "scan: %s: %s\n", path, rc == -EXDEV ? policy_key_error(rc) :
			strerror(-rc));
		scan_failed = 1;
		return 0;
	}
	/* every value, as the sync programs keep every value */
	e.value.len = len;
	memcpy(e.value.value, buf, sizeof(buf));
	snprintf(e.path, sizeof(e.path), "%s", path);
	/* one entry per inode seen; a hard link seen twice writes it twice */
	return append(scan_into, &e) ? -1 : 0;
}

int policy_scan_dir(const char *dir, struct policy *p)
{
	scan_into = p;
	scan_failed = 0;
	scan_fs.dev = (dev_t)-1;
	if (nftw(dir, scan_one, 16, FTW_PHYS | FTW_MOUNT) || scan_failed) {
		fprintf(stderr, "scan: %s: %s\n", dir, scan_failed ? "unreadable values" : strerror(errno));
		return -1;
	}
	return 0;
}

void policy_free(struct policy *p)
{
	free(p->v);
	memset(p, 0, sizeof(*p));
}
