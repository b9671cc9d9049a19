// SPDX-License-Identifier: GPL-2.0
/* The policy's two pinned maps (policymap.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "pins.h"
#include "policymap.h"

int policy_maps_open(struct policy_maps *pm, int rdonly)
{
	pm->removed = -1;
	pm->fresh = 0;
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

/* What one write replaced, to put back if a later one fails */
struct undo {
	struct fcaps_file_key key;
	struct fcaps_policy_value old[2];
	int had[2];	/* the key was in map [m] before */
};

static void roll_back(const struct policy_maps *pm, const struct undo *u, size_t n)
{
	while (n--)
		for (int m = 0; m < 2; m++)
			if (u[n].had[m])
				bpf_map_update_elem(pm->fd[m], &u[n].key, &u[n].old[m], BPF_ANY);
			else
				bpf_map_delete_elem(pm->fd[m], &u[n].key);
}

/*
 * A value that is not legacy-tagged which does not fit its map is only
 * predicted (BPF enforces none): counted and warned of, not an error; a
 * legacy one that does not fit is, and what this call wrote before it is
 * put back as it was: a failed command changes nothing.
 */
int put_policy(const struct policy_maps *pm, const struct policy *p, __u32 gen, __u64 flags)
{
	struct undo *u = calloc(pm->fresh || !p->n ? 1 : p->n, sizeof(*u));
	size_t lost = 0, done = 0;

	if (!u) {
		fprintf(stderr, "fcapsctl: policy map: out of memory\n");
		return -1;
	}
	for (size_t i = 0; i < p->n; i++) {
		struct fcaps_file_key key = p->v[i].key;
		int m = !fcaps_policy_is_legacy(&p->v[i].value);
		struct undo *w = &u[done];
		__u8 gone;

		if (flags == BPF_NOEXIST && pm->removed >= 0 &&
		    !bpf_map_lookup_elem(pm->removed, &key, &gone))
			continue;
		key.gen = gen;
		w->key = key;
		w->had[0] = w->had[1] = 0;
		if (!pm->fresh || flags == BPF_NOEXIST)
			w->had[!m] = !bpf_map_lookup_elem(pm->fd[!m], &key, &w->old[!m]);
		if (!pm->fresh && flags != BPF_NOEXIST)
			w->had[m] = !bpf_map_lookup_elem(pm->fd[m], &key, &w->old[m]);
		if (flags == BPF_NOEXIST && w->had[!m])
			continue;
		if (!bpf_map_update_elem(pm->fd[m], &key, &p->v[i].value, flags)) {
			if (flags != BPF_NOEXIST)
				bpf_map_delete_elem(pm->fd[!m], &key);
			done += !pm->fresh;
			continue;
		}
		if (flags == BPF_NOEXIST && errno == EEXIST)
			continue;
		if (m && (errno == E2BIG || errno == ENOMEM)) {
			lost++;
			continue;
		}
		fprintf(stderr, "fcapsctl: policy map: adding %s: %s; nothing written\n",
			p->v[i].path, strerror(errno));
		roll_back(pm, u, done);
		free(u);
		return -1;
	}
	free(u);
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
