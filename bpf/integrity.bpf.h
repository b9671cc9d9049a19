/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SEMANTICS 7, what its programs share (integrity.bpf.c has the design):
 * who may change enforcement, which objects are fcaps', and the refusal,
 * which shadow mode only records.
 */
#ifndef FCAPS_INTEGRITY_BPF_H
#define FCAPS_INTEGRITY_BPF_H

#include "ceiling.bpf.h"

/* SEMANTICS 7: CAP_SYS_ADMIN (or @cap) in the initial namespace, in pE as
 * the ceiling leaves it */
static __always_inline int may(const struct cred *cred, int cap)
{
	__u64 pe = fcaps_cap64(cred->cap_effective), pp = 0;

	if (cred->user_ns->level || !((pe >> cap) & 1))
		return 0;
	fcaps_capped_sets(cred, &pp, &pe);
	return (pe >> cap) & 1;
}

static __always_inline const struct cred *current_cred(void)
{
	return bpf_get_current_task_btf()->cred;
}

/* Is the BTF object @btf this load's (every map and program of it has it)? */
static __always_inline int own_btf(const struct btf *btf)
{
	return btf && BPF_CORE_READ(btf, id) == fcaps_own_btf;
}

static __always_inline int own_map(const struct bpf_map *map)
{
	return map && own_btf(BPF_CORE_READ(map, btf));
}

static __always_inline int own_prog(const struct bpf_prog *prog)
{
	return prog && own_btf(BPF_CORE_READ(prog, aux, btf));
}

/* Refuse (enforce) or record (shadow) a change to enforcement */
static __always_inline int refuse(const struct fcaps_config *cfg, __u32 op, __u32 arg)
{
	const struct cred *cred = current_cred();
	__u64 seq, pp = fcaps_cap64(cred->cap_permitted), pe = fcaps_cap64(cred->cap_effective);
	struct fcaps_decision *r = NULL;

	if (cfg->record != FCAPS_RECORD_NONE) {
		seq = fcaps_new_seq();
		r = fcaps_free_slot(&decisions, seq);
	}
	if (r) {
		fcaps_capped_sets(cred, &pp, &pe);
		r->hook = FCAPS_HOOK_INTEGRITY;
		r->pid = bpf_get_current_task_btf()->pid;
		r->op = op;
		r->arg = arg;
		r->uid = cred->uid.val;
		r->euid = cred->euid.val;
		r->pp = pp;
		r->pe = pe;
		fcaps_call_commit(r, seq, -EPERM);
	}
	/* a record that did not fit its ring is counted as lost */
	fcaps_count(FCAPS_HOOK_INTEGRITY, -EPERM, cfg->record != FCAPS_RECORD_NONE && !r);
	return cfg->mode == FCAPS_MODE_ENFORCE ? -EPERM : 0;
}

#endif /* FCAPS_INTEGRITY_BPF_H */
