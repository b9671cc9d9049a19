// SPDX-License-Identifier: GPL-2.0
/*
 * Signals and scheduling: SEMANTICS sections 3 and 4 from the live
 * credentials of sender and target.
 *
 * One fmod_ret program per security_task_*() function: it runs before any
 * LSM, so it sees (and records) the calls that the capability module
 * refuses, and in enforce mode its refusal is the function's return value
 * whatever the LSMs say, bpf in lsm= or not. Each call is decided from its
 * own arguments; the per-CPU call seq only joins the kernel's record.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "fcaps.bpf.h"

/* Target's permitted set a subset of the caller's (in one user namespace
 * when @same_ns_only), or the caller holds @cap in the target's namespace */
static __always_inline int dominates(const struct cred *scred,
				     const struct cred *tcred, int cap,
				     int same_ns_only, struct fcaps_decision *d)
{
	int subset;

	d->pp = fcaps_cap64(scred->cap_permitted);
	d->pe = fcaps_cap64(scred->cap_effective);
	d->securebits = scred->securebits;
	d->target_pp = fcaps_cap64(tcred->cap_permitted);
	d->same_userns = scred->user_ns == tcred->user_ns;
	d->cap_in_target_ns = fcaps_ns_capable(scred, tcred->user_ns, cap);
#ifdef FCAPS_PLANT_SUBSET_INVERTED
	subset = !(d->pp & ~d->target_pp);
#else
	subset = !(d->target_pp & ~d->pp);
#endif
#ifdef FCAPS_PLANT_NO_CAP_KILL
	if (cap == CAP_KILL)
		d->cap_in_target_ns = 0;
#endif
	return (subset && (d->same_userns || !same_ns_only)) ||
	       d->cap_in_target_ns;
}

/*
 * The same rule with nothing recorded: no record to fill, the cheapest test
 * first, the namespace walk only when the sets do not decide.
 */
static __always_inline int fast_decide(__u32 hook, struct task_struct *p,
				       const struct cred *explicit,
				       struct task_struct *task,
				       const struct fcaps_config *cfg)
{
	const struct cred *scred = explicit ? explicit : task->cred;
	const struct cred *tcred = p->real_cred;
	int kill = hook == FCAPS_HOOK_KILL;

	if (cfg->mode != FCAPS_MODE_ENFORCE || (kill && (explicit || !cfg->kill)))
		return 0;
	/* shared credentials: the target's set is the sender's, same ns */
	if (tcred == scred)
		return 0;
	if (!(fcaps_cap64(tcred->cap_permitted) & ~fcaps_cap64(scred->cap_permitted)) &&
	    (!kill || scred->user_ns == tcred->user_ns))
		return 0;
	return fcaps_ns_capable(scred, tcred->user_ns, kill ? CAP_KILL : CAP_SYS_NICE) ?
	       0 : -EPERM;
}

static __always_inline int decide(__u32 hook, struct task_struct *p, int sig,
				  const struct cred *explicit)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct fcaps_config *cfg = fcaps_config();
	struct fcaps_decision d = {};
	struct fcaps_call *c;
	__u32 zero = 0;
	int err;

	if (!cfg)
		return 0;
	if (cfg->record == FCAPS_RECORD_NONE)
		return fast_decide(hook, p, explicit, task, cfg);
	d.hook = hook;
	d.pid = task->pid;
	d.target = p->pid;
	d.target_tgid = p->tgid;
	d.sig = sig;
	d.explicit_cred = !!explicit;
	if (hook == FCAPS_HOOK_KILL) {
		/* SEMANTICS 3: the explicit credentials, not current, send it */
		int ok = dominates(explicit ? explicit : task->cred, p->real_cred,
				   CAP_KILL, 1, &d);

		d.ret = !explicit && !ok && cfg->kill ? -EPERM : 0;
	} else {
		/* SEMANTICS 4: 6.1's cap_safe_nice(), sets compared as they are */
		d.ret = dominates(task->cred, p->real_cred, CAP_SYS_NICE, 0, &d) ?
			0 : -EPERM;
	}
	if (!fcaps_recording(cfg, d.ret))
		goto out;
	d.seq = fcaps_new_seq();
	c = bpf_map_lookup_elem(&call_inflight, &zero);
	if (c && explicit) {
		c->explicit_seq = d.seq;
		c->cred = (__u64)explicit;
	} else if (c) {
		c->seq = d.seq;
		c->task = (__u64)task;
		c->hook = hook;
		c->target = d.target;
		c->sig = sig;
	}
	err = fcaps_record(&decisions, &d);
	fcaps_count(hook, d.ret, err);
out:
#ifdef FCAPS_PLANT_ENFORCE_KILL
	if (hook == FCAPS_HOOK_KILL)
		return 0;	/* planted bug: signals are never refused */
#endif
	return cfg->mode == FCAPS_MODE_ENFORCE ? d.ret : 0;
}

SEC("fmod_ret/security_task_kill")
int BPF_PROG(fcaps_kill, struct task_struct *p, struct kernel_siginfo *info,
	     int sig, const struct cred *cred, int ret)
{
	return ret ? ret : decide(FCAPS_HOOK_KILL, p, sig, cred);
}

SEC("fmod_ret/security_task_setscheduler")
int BPF_PROG(fcaps_setscheduler, struct task_struct *p, int ret)
{
	return ret ? ret : decide(FCAPS_HOOK_SETSCHEDULER, p, 0, NULL);
}

SEC("fmod_ret/security_task_setnice")
int BPF_PROG(fcaps_setnice, struct task_struct *p, int nice, int ret)
{
	return ret ? ret : decide(FCAPS_HOOK_SETNICE, p, 0, NULL);
}

SEC("fmod_ret/security_task_setioprio")
int BPF_PROG(fcaps_setioprio, struct task_struct *p, int ioprio, int ret)
{
	return ret ? ret : decide(FCAPS_HOOK_SETIOPRIO, p, 0, NULL);
}
