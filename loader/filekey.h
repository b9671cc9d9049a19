/* SPDX-License-Identifier: GPL-2.0 */
/* A file as the BPF side keys it: the kernel's s_dev and inode number. */
#ifndef FCAPS_FILEKEY_H
#define FCAPS_FILEKEY_H

#include <linux/types.h>
#include <sys/types.h>
#include <sys/stat.h>
#include "fcaps.h"

/* The kernel's dev_t encoding (MKDEV: 12-bit major, 20-bit minor) of a
 * userspace st_dev, and back, for printing. */
__u32 kernel_dev(dev_t st_dev);
unsigned int kdev_major(__u32 kdev);
unsigned int kdev_minor(__u32 kdev);

/* The filesystem type of the last device a scan saw, so that it asks once
 * a device (the scan's open directories keep those filesystems mounted) */
struct fs_seen {
	dev_t dev;
	long type;
};

/*
 * Key of the file open as @fd (O_PATH will do): -EXDEV on an overlay,
 * whose inodes the BPF side keys by the layer they come from, which
 * userspace cannot name; -errno otherwise. @st, when given, must be the
 * same file (dev and inode), or -ESTALE: it was replaced meanwhile. @fs,
 * when given, caches the filesystem type (struct fs_seen).
 */
int policy_key_fd(int fd, const struct stat *st, struct fcaps_file_key *key,
		  struct fs_seen *fs);

/*
 * Open @path as the user named it, never through a symbolic link in any
 * component (openat2 RESOLVE_NO_SYMLINKS), with @flags; -errno, -ELOOP
 * for a link.
 */
int open_named(const char *path, int flags);

/* Key of the file at @path (open_named()); -errno on failure. */
int policy_key(const char *path, struct fcaps_file_key *key);
/* What a policy_key() error means, for a message */
const char *policy_key_error(int rc);

#endif
