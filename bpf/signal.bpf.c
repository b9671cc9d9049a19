// SPDX-License-Identifier: GPL-2.0
/*
 * Signals and scheduling: SEMANTICS sections 3 and 4 from the live
 * credentials of sender and target.
 *
 * One fmod_ret program per security_task_*() function: it runs before any
 * LSM, so it sees (and records) the calls that the capability module
 * refuses, and in enforce mode its refusal is the function's return value
 * whatever the LSMs say, bpf in lsm= or not. Each call is decided from its
 * own arguments; the call's seq (fcaps_calls) only joins the kernel's
 * record. The programs do not look at the result of an earlier fmod_ret
 * program: 6.1's trampoline runs none after one that returned non-zero
 * (invoke_bpf_mod_ret()), so it is always 0 here.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
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
#ifdef FCAPS_PLANT_SUBSET_INVERTED
	int subset = !(pp & ~target_pp);
#else
	__u64 both = target_pp | pp;
	int subset;

	/* target_pp within pp as an or and a compare: clang would turn it
	 * into an and-not, a third instruction in BPF, which has no not */
	asm volatile("" : "+r"(both));
	subset = both == pp;
#endif
#ifdef FCAPS_PLANT_NO_CAP_KILL
	if (kill)
		cap_in_ns = 0;
#endif
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

#ifdef FCAPS_PLANT_NOREC_USERNS	/* planted bug: the rule alone ignores namespaces */
	return pair_allows(kill, pp, target_pp, 1, 0);
#endif
	return pair_allows(kill, pp, target_pp, scred->user_ns == tcred->user_ns, 0);
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
#ifdef FCAPS_PLANT_NOREC_USERNS
	if (pair_allows(kill, pp, target_pp, 1, 0))
		return 0;
#endif
	ret = pair_allows(kill, pp, target_pp, own == tns,
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

/* Record the call under a new seq, deciding from the facts recorded */
static __always_inline int record_call(__u32 hook, struct task_struct *task,
				       struct task_struct *p, int sig,
				       const struct cred *explicit,
				       const struct fcaps_config *cfg)
{
	int kill = hook == FCAPS_HOOK_KILL, ret;
	/* SEMANTICS 3: the explicit credentials, not current, send it */
	const struct cred *scred = explicit ? explicit : task->cred;
	__u64 seq = fcaps_new_seq();
	struct fcaps_decision *r = fcaps_free_slot(&decisions, seq);
	struct fcaps_call_ids ids;

	if (!r) {
		/* the ring is full: decided all the same, and the loss counted */
		ret = pair_rule(kill, explicit, scred, p->real_cred);
		fcaps_count(hook, ret, 1);
		return ret;
	}
	fcaps_call_ids(&ids, task, p);
	fcaps_call_facts(r, hook, &ids, sig, scred, p->real_cred, !!explicit,
			 kill ? CAP_KILL : CAP_SYS_NICE, 1);
	if (kill && (explicit || !cfg->kill))
		ret = 0;
	else
		ret = pair_allows(kill, r->pp, r->target_pp, r->same_userns,
				  r->cap_in_target_ns) ? 0 : -EPERM;
	fcaps_call_commit(r, seq, ret);
	/* the kernel's recorder joins by the seq (load --kernel-records) */
	if (cfg->kernel_records) {
		if (explicit) {
			fcaps_explicit_call.cred = (__u64)explicit;
			fcaps_explicit_call.seq = seq;
		} else {
			fcaps_call_begin(ids.pid, hook, ids.target, sig, seq);
		}
	}
	fcaps_count(hook, ret, 0);
	return ret;
}

static __always_inline int decide(__u32 hook, struct task_struct *p, int sig,
				  const struct cred *explicit)
{
	struct fcaps_config *cfg = fcaps_config();
	int kill = hook == FCAPS_HOOK_KILL, ret;
	struct task_struct *task;

	if (!cfg)
		return 0;
	if (cfg->record == FCAPS_RECORD_NONE && cfg->mode != FCAPS_MODE_ENFORCE)
		return 0;
	task = bpf_get_current_task_btf();
	if (cfg->record == FCAPS_RECORD_ALL)
		ret = record_call(hook, task, p, sig, explicit, cfg);
	else
		ret = pair_rule(kill, explicit, explicit ? explicit : task->cred,
				p->real_cred);
	if (ret && cfg->record == FCAPS_RECORD_DENIED)
		ret = record_call(hook, task, p, sig, explicit, cfg);
#ifdef FCAPS_PLANT_ENFORCE_KILL
	if (kill)
		return 0;	/* planted bug: signals are never refused */
#endif
	if (cfg->mode != FCAPS_MODE_ENFORCE || !ret)
		return 0;
	/* the call ends here, before the kernel's tracepoint */
	if (!explicit && cfg->kernel_records)
		fcaps_call_end(task->pid);
	return ret;
}

SEC("fmod_ret/security_task_kill")
int BPF_PROG(fcaps_kill, struct task_struct *p, struct kernel_siginfo *info,
	     int sig, const struct cred *cred, int ret)
{
	return decide(FCAPS_HOOK_KILL, p, sig, cred);
}

SEC("fmod_ret/security_task_setscheduler")
int BPF_PROG(fcaps_setscheduler, struct task_struct *p, int ret)
{
	return decide(FCAPS_HOOK_SETSCHEDULER, p, 0, NULL);
}

SEC("fmod_ret/security_task_setnice")
int BPF_PROG(fcaps_setnice, struct task_struct *p, int nice, int ret)
{
	return decide(FCAPS_HOOK_SETNICE, p, 0, NULL);
}

SEC("fmod_ret/security_task_setioprio")
int BPF_PROG(fcaps_setioprio, struct task_struct *p, int ioprio, int ret)
{
	return decide(FCAPS_HOOK_SETIOPRIO, p, 0, NULL);
}

/* Armed and enforcing, but a ceiling is live: the whole rule. @explicit
 * comes from the caller, which alone knows whether its hook has one. */
static __noinline int enforce_capped(int kill, const struct cred *explicit,
				     struct task_struct *p)
{
	return pair_rule(kill, explicit, bpf_get_current_task_btf()->cred, p->real_cred);
}

/* The explicit credentials of a signal (security_task_kill()'s fourth
 * argument); none for the scheduling hooks */
static __always_inline const struct cred *norec_explicit(int kill, unsigned long long *ctx)
{
	return kill ? (const struct cred *)ctx[3] : NULL;
}

/*
 * --record none loads these instead: the rule alone, in enforce mode, so
 * that a call costs the trampoline and a handful of loads (the bench
 * note). The recording programs above stay out of the kernel. They take
 * their context as it is, not through BPF_PROG(): the target is read
 * after the helper call and the explicit credentials only when the sets
 * refuse, so that one register, the context, lives across the call.
 */
static __always_inline int enforce(__u32 hook, unsigned long long *ctx)
{
	int kill = hook == FCAPS_HOOK_KILL, ret;
	const struct cred *scred, *tcred;
	/* armed, the mode and the ceilings' count in one load (fcaps.h) */
	__u64 gate = *(volatile __u64 *)__builtin_assume_aligned(&fcaps_cfg, 8);
	struct task_struct *p;

	if (gate != FCAPS_ARMED_ENFORCING) {
		if ((__u32)gate != FCAPS_ARMED_ENFORCING)
			return 0;
		ret = enforce_capped(kill, norec_explicit(kill, ctx),
				     (struct task_struct *)ctx[0]);
		goto out;
	}
	scred = bpf_get_current_task_btf()->cred;
	p = (struct task_struct *)ctx[0];
	tcred = p->real_cred;
	/* no shortcut for shared credentials here: it would cost every other
	 * signal two instructions to save a thread group's (the bench note) */
	if (pair_sets_allow(kill, scred, tcred))
		return 0;
	ret = pair_rule_slow(kill, norec_explicit(kill, ctx), scred, tcred);
out:
#ifdef FCAPS_PLANT_ENFORCE_KILL
	if (kill)
		return 0;
#endif
	return ret;
}

/* security_task_kill(p, info, sig, cred) */
SEC("fmod_ret/security_task_kill")
int fcaps_kill_norec(unsigned long long *ctx)
{
	return enforce(FCAPS_HOOK_KILL, ctx);
}

SEC("fmod_ret/security_task_setscheduler")
int fcaps_setscheduler_norec(unsigned long long *ctx)
{
	return enforce(FCAPS_HOOK_SETSCHEDULER, ctx);
}

SEC("fmod_ret/security_task_setnice")
int fcaps_setnice_norec(unsigned long long *ctx)
{
	return enforce(FCAPS_HOOK_SETNICE, ctx);
}

SEC("fmod_ret/security_task_setioprio")
int fcaps_setioprio_norec(unsigned long long *ctx)
{
	return enforce(FCAPS_HOOK_SETIOPRIO, ctx);
}
