/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Decision records in their rings (decisions, kdecisions): written in
 * place, the seq last, by BPF's decisions and the kernel's recorders alike.
 */
#ifndef FCAPS_RECORDS_BPF_H
#define FCAPS_RECORDS_BPF_H

#include "userns.bpf.h"

/*
 * Store @d (d->seq != 0) in its slot of @map; 0, or -1 when the slot still
 * holds an unread record of another event (an exec's own record is
 * replaced: the interpreter's follows the script's). The seq goes last, so
 * that a reader that sees it sees the whole record (x86 keeps stores in
 * order; the barrier keeps the compiler from moving them).
 */
static __always_inline int fcaps_record(void *map, struct fcaps_decision *d)
{
	__u32 slot = FCAPS_DECISION_SLOT(d->seq);
	struct fcaps_decision *r = bpf_map_lookup_elem(map, &slot);
	__u64 seq = d->seq;

	if (!r || (r->seq && r->seq != seq))
		return -1;
	d->seq = 0;
	*r = *d;
	d->seq = seq;
	asm volatile("" ::: "memory");
	r->seq = seq;
	return 0;
}

/*
 * What a signal's or scheduling call's record says of its sender (@scred)
 * and target, and what the rule looks at: filled by BPF's decision and by
 * the kernel's recorder alike.
 */
/*
 * A signal's or scheduling call's record is written in place, field by
 * field as it is read, into its free ring slot: not built on the stack and
 * copied (a whole record is three times the stores it needs, and a dozen
 * facts held across the rule spilled to the stack). A free slot is all zero
 * (readers clear a record before they free its slot, ring_free()), so the
 * exec fields stay 0. NULL when the slot still holds another event's
 * record: the caller decides without one and counts the loss.
 */
static __always_inline struct fcaps_decision *fcaps_free_slot(void *map, __u64 seq)
{
	__u32 slot = FCAPS_DECISION_SLOT(seq);
	struct fcaps_decision *r = bpf_map_lookup_elem(map, &slot);

	return r && !r->seq ? r : NULL;
}

/* Who sends to whom: read once, for the record and for the join */
struct fcaps_call_ids {
	__u32 pid, target, target_tgid;
};

static __always_inline void fcaps_call_ids(struct fcaps_call_ids *ids,
					   struct task_struct *task, struct task_struct *p)
{
	ids->pid = task->pid;
	ids->target = p->pid;
	ids->target_tgid = p->tgid;
}

/*
 * Sender @scred, target @tcred, and what the rule looks at (its
 * capability @cap in the target's namespace), into @r: by BPF's decision
 * and by the kernel's recorder alike.
 */
static __always_inline void fcaps_call_facts(struct fcaps_decision *r, __u32 hook,
					     const struct fcaps_call_ids *ids, int sig,
					     const struct cred *scred,
					     const struct cred *tcred,
					     int explicit_cred, int cap, int capped)
{
	/* every probing load once, then the stores */
	struct user_namespace *own = scred->user_ns, *tns = tcred->user_ns;
	__u64 pp = fcaps_cap64(scred->cap_permitted);
	__u64 pe = fcaps_cap64(scred->cap_effective);
	__u64 target_pp = fcaps_cap64(tcred->cap_permitted), target_pe = 0;
	__u32 securebits = scred->securebits;

	/* BPF's decision (@capped) sees the sets the kernel path would;
	 * the kernel's recorder, the kernel's own */
	if (capped) {
		fcaps_capped_sets(scred, &pp, &pe);
		fcaps_capped_sets(tcred, &target_pp, &target_pe);
	}

	r->hook = hook;
	r->pid = ids->pid;
	r->target = ids->target;
	r->target_tgid = ids->target_tgid;
	r->sig = sig;
	r->explicit_cred = explicit_cred;
	r->pp = pp;
	r->pe = pe;
	r->target_pp = target_pp;
	r->securebits = securebits;
	r->same_userns = own == tns;
	r->cap_in_target_ns = fcaps_ns_capable_from(scred, own, pe, tns, cap);
}

/* The record complete: its seq goes last (fcaps_record()) */
static __always_inline void fcaps_call_commit(struct fcaps_decision *r, __u64 seq, int ret)
{
	r->ret = ret;
	fcaps_barrier();
	r->seq = seq;
}

#endif /* FCAPS_RECORDS_BPF_H */
