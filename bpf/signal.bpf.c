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
	int subset = !(target_pp & ~pp);
#endif
#ifdef FCAPS_PLANT_NO_CAP_KILL
	if (kill)
		cap_in_ns = 0;
#endif
	return (subset && (same_userns || !kill)) || cap_in_ns;
}

/* The rule when credentials anywhere carry a ceiling: on the sets the
 * kernel path would hold. Out of line: the usual path never has one. */
static __noinline int pair_rule_capped(int kill, const struct cred *scred,
				       const struct cred *tcred)
{
	struct user_namespace *own = scred->user_ns, *tns = tcred->user_ns;
	__u64 pp = fcaps_cap64(scred->cap_permitted), pe = fcaps_cap64(scred->cap_effective);
	__u64 target_pp = fcaps_cap64(tcred->cap_permitted), target_pe = 0;

	fcaps_capped_sets(scred, &pp, &pe);
	fcaps_capped_sets(tcred, &target_pp, &target_pe);
#ifdef FCAPS_PLANT_NOREC_USERNS
	if (pair_allows(kill, pp, target_pp, 1, 0))
		return 0;
#endif
	return pair_allows(kill, pp, target_pp, own == tns,
			   fcaps_ns_capable_from(scred, own, pe, tns,
						 kill ? CAP_KILL : CAP_SYS_NICE)) ? 0 : -EPERM;
}

/* 0 or -EPERM: what the rule decides, whatever the mode */
static __always_inline int pair_rule(int kill, const struct cred *explicit,
				     const struct cred *scred, const struct cred *tcred,
				     const struct fcaps_config *cfg)
{
	struct user_namespace *own, *tns;
	__u64 pp, target_pp;

	/* SEMANTICS 3: explicit credentials (USB) and the switch */
	if (kill && (explicit || !cfg->kill))
		return 0;
	/* shared credentials (a thread group): the same sets, one namespace */
	if (scred == tcred && pair_allows(kill, 0, 0, 1, 0))
		return 0;
	/* a capped file's runner: the sets the kernel path would give it */
	if (*(volatile __u64 *)&ceilings_live)
		return pair_rule_capped(kill, scred, tcred);
	pp = fcaps_cap64(scred->cap_permitted);
	target_pp = fcaps_cap64(tcred->cap_permitted);
	own = scred->user_ns;
	tns = tcred->user_ns;
#ifdef FCAPS_PLANT_NOREC_USERNS	/* planted bug: the rule alone ignores namespaces */
	if (pair_allows(kill, pp, target_pp, 1, 0))
		return 0;
#endif
	if (pair_allows(kill, pp, target_pp, own == tns, 0))
		return 0;
	return pair_allows(kill, pp, target_pp, own == tns,
			   fcaps_ns_capable_from(scred, own, fcaps_cap64(scred->cap_effective),
						 tns, kill ? CAP_KILL : CAP_SYS_NICE)) ?
	       0 : -EPERM;
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
		ret = pair_rule(kill, explicit, scred, p->real_cred, cfg);
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
				p->real_cred, cfg);
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

/*
 * --record none loads these instead: the rule alone, in enforce mode, so
 * that a call costs the trampoline and a handful of loads (the bench
 * note). The recording programs above stay out of the kernel.
 */
static __always_inline int enforce(__u32 hook, struct task_struct *p,
				   const struct cred *explicit)
{
	int ret;

	/* the global itself, not fcaps_config(), and armed with the mode in
	 * one load: the fewest instructions on this path */
	if (*(volatile __u64 *)__builtin_assume_aligned(&fcaps_cfg, 8) != FCAPS_ARMED_ENFORCING)
		return 0;
	ret = pair_rule(hook == FCAPS_HOOK_KILL, explicit,
			explicit ? explicit : bpf_get_current_task_btf()->cred,
			p->real_cred, &fcaps_cfg);
#ifdef FCAPS_PLANT_ENFORCE_KILL
	if (hook == FCAPS_HOOK_KILL)
		return 0;
#endif
	return ret;
}

SEC("fmod_ret/security_task_kill")
int BPF_PROG(fcaps_kill_norec, struct task_struct *p, struct kernel_siginfo *info,
	     int sig, const struct cred *cred, int ret)
{
	return enforce(FCAPS_HOOK_KILL, p, cred);
}

SEC("fmod_ret/security_task_setscheduler")
int BPF_PROG(fcaps_setscheduler_norec, struct task_struct *p, int ret)
{
	return enforce(FCAPS_HOOK_SETSCHEDULER, p, NULL);
}

SEC("fmod_ret/security_task_setnice")
int BPF_PROG(fcaps_setnice_norec, struct task_struct *p, int nice, int ret)
{
	return enforce(FCAPS_HOOK_SETNICE, p, NULL);
}

SEC("fmod_ret/security_task_setioprio")
int BPF_PROG(fcaps_setioprio_norec, struct task_struct *p, int ioprio, int ret)
{
	return enforce(FCAPS_HOOK_SETIOPRIO, p, NULL);
}
