/* SPDX-License-Identifier: GPL-2.0 */
/* Policies: which files carry which legacy values, as the BPF side keys
 * them (the kernel's s_dev and the inode number). */
#ifndef FCAPS_POLICY_H
#define FCAPS_POLICY_H

#include <linux/types.h>
#include <stddef.h>
#include <sys/types.h>
#include "fcaps.h"

struct policy_entry {
	struct fcaps_file_key key;
	struct fcaps_policy_value value;
	char path[256];
};

struct policy {
	struct policy_entry *v;
	size_t n, cap;
};

/* The kernel's dev_t encoding (MKDEV: 12-bit major, 20-bit minor) of a
 * userspace st_dev. */
__u32 kernel_dev(dev_t st_dev);
/* And back, for printing: major and minor of a kernel s_dev. */
unsigned int kdev_major(__u32 kdev);
unsigned int kdev_minor(__u32 kdev);

/* Key of the file at @path; -errno on failure (-EXDEV: an overlay's). */
int policy_key(const char *path, struct fcaps_file_key *key);
/* What a policy_key() error means, for a message */
const char *policy_key_error(int rc);

/* Parse a policy file: lines "PATH [v1|v3] CAPTEXT..." or "PATH hex:BYTES";
 * '#' comments and blank lines are ignored. On a bad line, print
 * "FILE:LINE: why" to stderr and return -1 with @p untouched. */
int policy_parse_file(const char *file, struct policy *p);

/* Add every file under @dir whose security.capability is legacy-tagged
 * (malformed included). Returns 0 or -1 with a message. */
int policy_scan_dir(const char *dir, struct policy *p);

/* Add one entry for @path with @text ("[v1|v3] CAPTEXT" or "hex:BYTES");
 * returns 0 or -1 with a message in @err. */
int policy_add_text(struct policy *p, const char *path, const char *text,
		    char *err, size_t errlen);

void policy_free(struct policy *p);

#endif
