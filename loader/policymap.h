/* SPDX-License-Identifier: GPL-2.0 */
/* The policy's two pinned maps (fcaps_policy_is_legacy()), as the loader
 * writes and reads them. */
#ifndef FCAPS_POLICYMAP_H
#define FCAPS_POLICYMAP_H

#include <linux/types.h>
#include "policyfile.h"

/* [0] legacy-tagged values, [1] the rest: a key is in one of them; and
 * the values removed while a scan runs (scan_removed), or -1 */
struct policy_maps {
	int fd[2];
	int removed;
	int fresh;	/* a load's own maps: a failure drops them whole */
};

/* The pinned ones; 0 or -1 with the error printed */
int policy_maps_open(struct policy_maps *pm, int rdonly);
void policy_maps_close(struct policy_maps *pm);

/*
 * Write @p as generation @gen. @flags BPF_NOEXIST (a scan's): what the
 * sync programs wrote meanwhile wins, and a value removed meanwhile is not
 * put back. 0 or -1 with the error printed.
 */
int put_policy(const struct policy_maps *pm, const struct policy *p, __u32 gen, __u64 flags);

/* Empty the map @fd (of fcaps_file_key keys) */
void clear_map(int fd);

/* Remove every entry not of generation @keep (an old or aborted policy) */
void drop_other_gens(const struct policy_maps *pm, __u32 keep);

#endif
