// SPDX-License-Identifier: GPL-2.0
/* Files as the BPF side keys them (filekey.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/openat2.h>
#include "filekey.h"

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

int policy_key_fd(int fd, const struct stat *st, struct fcaps_file_key *key,
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

int open_named(const char *path, int flags)
{
	struct open_how how = {
		.flags = flags | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));

	return fd < 0 ? -errno : (int)fd;
}

int policy_key(const char *path, struct fcaps_file_key *key)
{
	int fd = open_named(path, O_PATH), rc;

	if (fd < 0)
		return fd;
	rc = policy_key_fd(fd, NULL, key, NULL);
	close(fd);
	return rc;
}

const char *policy_key_error(int rc)
{
	if (rc == -ELOOP)
		return "a component is a symbolic link: name the file itself "
		       "(readlink -f gives its path)";
	return rc == -EXDEV ? "on an overlay: give its layers (the BPF side keys an overlay's "
			      "files by the layer the kernel reads them from)" : strerror(-rc);
}
