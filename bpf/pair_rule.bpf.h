/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SEMANTICS 3 and 4: the rule signals, scheduling calls and the other
 * ways to signal (prlimit, SIGIO) are decided by, and its record. Shared
 * by signal.bpf.c and channels.bpf.c.
 */
#ifndef FCAPS_PAIR_RULE_BPF_H
#define FCAPS_PAIR_RULE_BPF_H

#include "fcaps.bpf.h"

/*
 * SEMANTICS 3 and 4, the one rule every mode decides by: the target's
 * permitted set a subset of the sender's (in one user namespace for a
 * signal), or the sender holds the hook's capability in the target's
 * namespace (@cap_in_ns). Monotone in @cap_in_ns, so that a caller may try
 * 0 first and walk the namespaces only when the sets do not decide.
 */
static __always_inline int pair_allows(int kill, __u64 pp, __u64 target_pp,
				       int same_userns, int cap_in_ns)
{
	__u64 both = target_pp | pp;
	int subset;

	/* target_pp within pp as an or and a compare: clang would turn it
	 * into an and-not, a third instruction in BPF, which has no not */
	asm volatile("" : "+r"(both));
	subset = both == pp;
	if (fcaps_plant(SUBSET_INVERTED))
		subset = !(pp & ~target_pp);
	if (fcaps_plant(NO_CAP_KILL) && kill)
		cap_in_ns = 0;
	return (subset && (same_userns || !kill)) || cap_in_ns;
}

/*
 * The rule, in two halves. pair_sets_allow() is the usual path: live
 * sets and namespaces, no ceiling anywhere, and true only when they allow.
 * pair_rule_slow() is every other case, out of line so that the usual
 * path holds few registers: the ceilings, the walk for the capability in
 * the target's namespace, and SEMANTICS 3's exemptions (explicit
 * credentials, from USB; the kill switch off), which allow whatever the
 * sets say and so are tested only when the sets refuse. With @explicit
 * set the result is 0 whatever @scred is, so a caller that records
 * nothing may pass current's credentials.
 */
static __always_inline int pair_sets_allow(int kill, const struct cred *scred,
					   const struct cred *tcred)
{
	__u64 pp = fcaps_cap64(scred->cap_permitted);
	__u64 target_pp = fcaps_cap64(tcred->cap_permitted);

	return pair_allows(kill, pp, target_pp,
			   fcaps_plant(NOREC_USERNS) || scred->user_ns == tcred->user_ns, 0);
}

static __noinline int pair_rule_slow(int kill, const struct cred *explicit,
				     const struct cred *scred, const struct cred *tcred)
{
	struct user_namespace *own = scred->user_ns, *tns = tcred->user_ns;
	__u64 pp = fcaps_cap64(scred->cap_permitted), pe = fcaps_cap64(scred->cap_effective);
	__u64 target_pp = fcaps_cap64(tcred->cap_permitted), target_pe = 0;
	int ret;

	/* a capped file's runner: the sets the kernel path would give it */
	fcaps_capped_sets(scred, &pp, &pe);
	fcaps_capped_sets(tcred, &target_pp, &target_pe);
	if (fcaps_plant(NOREC_USERNS) && pair_allows(kill, pp, target_pp, 1, 0))
		return 0;
	ret = pair_allows(kill, pp, target_pp, fcaps_plant(KILL_ANY_NS) || own == tns,
			  fcaps_ns_capable_from(scred, own, pe, tns,
						kill ? CAP_KILL : CAP_SYS_NICE)) ? 0 : -EPERM;
	if (ret && kill && (explicit || !fcaps_cfg.kill))
		return 0;
	return ret;
}

/* 0 or -EPERM: what the rule decides, whatever the mode */
static __always_inline int pair_rule(int kill, const struct cred *explicit,
				     const struct cred *scred, const struct cred *tcred)
{
	/* shared credentials (a thread group): the same sets in one
	 * namespace, which every form of the rule allows */
	if (scred == tcred)
		return 0;
	if (!fcaps_ceilings_live() && pair_sets_allow(kill, scred, tcred))
		return 0;
	return pair_rule_slow(kill, explicit, scred, tcred);
}

/*
 * Record a call of @ids under a new seq, deciding from the facts recorded:
 * sender @scred (@explicit: credentials the signal carries), target @tcred
 */
static __always_inline int record_pair(__u32 hook, const struct fcaps_call_ids *ids, int sig,
				       const struct cred *scred, const struct cred *tcred,
				       const struct cred *explicit,
				       const struct fcaps_config *cfg)
{
	int kill = hook != FCAPS_HOOK_SETSCHEDULER && hook != FCAPS_HOOK_SETNICE &&
		   hook != FCAPS_HOOK_SETIOPRIO, ret;
	__u64 seq = fcaps_new_seq();
	struct fcaps_decision *r = fcaps_free_slot(&decisions, seq);

	if (!r) {
		/* the ring is full: decided all the same, and the loss counted */
		ret = pair_rule(kill, explicit, scred, tcred);
		fcaps_count(hook, ret, 1);
		return ret;
	}
	fcaps_call_facts(r, hook, ids, sig, scred, tcred, !!explicit,
			 kill ? CAP_KILL : CAP_SYS_NICE, 1);
	if (kill && (explicit || !cfg->kill))
		ret = 0;
	else
		ret = pair_allows(kill, r->pp, r->target_pp,
				  fcaps_plant(KILL_ANY_NS) || r->same_userns,
				  r->cap_in_target_ns) ? 0 : -EPERM;
	fcaps_call_commit(r, seq, ret);
	/* the kernel's recorder joins by the seq (load --kernel-records) */
	if (cfg->kernel_records) {
		if (explicit) {
			fcaps_explicit_call.cred = (__u64)explicit;
			fcaps_explicit_call.seq = seq;
		} else {
			fcaps_call_begin(ids->pid, hook, ids->target, sig, seq);
		}
	}
	fcaps_count(hook, ret, 0);
	return ret;
}

#endif /* FCAPS_PAIR_RULE_BPF_H */
