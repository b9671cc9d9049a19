// SPDX-License-Identifier: GPL-2.0
/* The policy's two pinned maps (policymap.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "pins.h"
#include "policymap.h"

int policy_maps_open(struct policy_maps *pm, int rdonly)
{
	pm->removed = -1;
	pm->fd[0] = map_fd("policy", rdonly);
	pm->fd[1] = pm->fd[0] < 0 ? -1 : map_fd("policy61", rdonly);
	if (pm->fd[1] < 0) {
		if (pm->fd[0] >= 0)
			close(pm->fd[0]);
		return -1;
	}
	return 0;
}

void policy_maps_close(struct policy_maps *pm)
{
	close(pm->fd[0]);
	close(pm->fd[1]);
}

/*
 * A value that is not legacy-tagged which does not fit its map is only
 * predicted (BPF enforces none): counted and warned of, not an error; a
 * legacy one that does not fit is.
 */
int put_policy(const struct policy_maps *pm, const struct policy *p, __u32 gen, __u64 flags)
{
	size_t lost = 0;

	for (size_t i = 0; i < p->n; i++) {
		struct fcaps_file_key key = p->v[i].key;
		int m = !fcaps_policy_is_legacy(&p->v[i].value);
		struct fcaps_policy_value old;
		__u8 gone;

		if (flags == BPF_NOEXIST && pm->removed >= 0 &&
		    !bpf_map_lookup_elem(pm->removed, &key, &gone))
			continue;
		key.gen = gen;
		if (flags == BPF_NOEXIST && !bpf_map_lookup_elem(pm->fd[!m], &key, &old))
			continue;
		if (!bpf_map_update_elem(pm->fd[m], &key, &p->v[i].value, flags)) {
			if (flags != BPF_NOEXIST)
				bpf_map_delete_elem(pm->fd[!m], &key);
			continue;
		}
		if (flags == BPF_NOEXIST && errno == EEXIST)
			continue;
		if (m && (errno == E2BIG || errno == ENOMEM)) {
			lost++;
			continue;
		}
		fprintf(stderr, "fcapsctl: policy map: adding %s: %s\n",
			p->v[i].path, strerror(errno));
		return -1;
	}
	if (lost)
		fprintf(stderr, "fcapsctl: warning: policy61 is full: %zu values of 6.1's formats "
			"not mirrored (BPF predicts those files as having none)\n", lost);
	return 0;
}

void clear_map(int fd)
{
	struct fcaps_file_key key;

	while (!bpf_map_get_next_key(fd, NULL, &key))
		if (bpf_map_delete_elem(fd, &key))
			break;
}

void drop_other_gens(const struct policy_maps *pm, __u32 keep)
{
	for (int m = 0; m < 2; m++) {
		struct fcaps_file_key key, next;
		int more = !bpf_map_get_next_key(pm->fd[m], NULL, &next);

		while (more) {
			key = next;
			more = !bpf_map_get_next_key(pm->fd[m], &key, &next);
			if (key.gen != keep)
				bpf_map_delete_elem(pm->fd[m], &key);
		}
	}
}
