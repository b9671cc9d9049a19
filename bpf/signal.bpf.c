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
#include "pair_rule.bpf.h"

/* Record the call under a new seq, deciding from the facts recorded */
static __always_inline int record_call(__u32 hook, struct task_struct *task,
				       struct task_struct *p, int sig,
				       const struct cred *explicit,
				       const struct fcaps_config *cfg)
{
	struct fcaps_call_ids ids;

	fcaps_call_ids(&ids, task, p);
	/* SEMANTICS 3: the explicit credentials, not current, send it */
	return record_pair(hook, &ids, sig, explicit ? explicit : task->cred, p->real_cred,
			   explicit, cfg);
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
	if (fcaps_plant(ENFORCE_KILL) && kill)
		return 0;
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
	 * signal two instructions to save a thread group's (docs/benchmark.md) */
	if (pair_sets_allow(kill, scred, tcred))
		return 0;
	ret = pair_rule_slow(kill, norec_explicit(kill, ctx), scred, tcred);
out:
	if (fcaps_plant(ENFORCE_KILL) && kill)
		return 0;
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
