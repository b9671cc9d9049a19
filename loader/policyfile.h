/* SPDX-License-Identifier: GPL-2.0 */
/* Policies: which files carry which legacy values, as the BPF side keys
 * them (the kernel's s_dev and the inode number). */
#ifndef FCAPS_POLICYFILE_H
#define FCAPS_POLICYFILE_H

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
	/* scanned files with a legacy value, held open until the entries
	 * are written: one deleted meanwhile is freed (and its entry with
	 * it) only after, never before, so no entry outlives its inode */
	int *held;
	size_t nheld;
};

/* Parse a policy file: lines "PATH [v1|v3] CAPTEXT..." or "PATH hex:BYTES";
 * '#' comments and blank lines are ignored. On a bad line, print
 * "FILE:LINE: why" to stderr and return -1 with @p untouched. */
int policy_parse_file(const char *file, struct policy *p);

/* Add one entry for @path with @text ("[v1|v3] CAPTEXT" or "hex:BYTES");
 * returns 0 or -1 with a message in @err. */
int policy_add_text(struct policy *p, const char *path, const char *text,
		    char *err, size_t errlen);

/* Append a copy of @e; 0 or -1 (no memory) */
int policy_append(struct policy *p, const struct policy_entry *e);
/* Keep @fd open until policy_free(): 0, or -1 (closed) */
int policy_hold(struct policy *p, int fd);
void policy_free(struct policy *p);

#endif
