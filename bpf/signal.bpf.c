// SPDX-License-Identifier: GPL-2.0
/*
 * Signals and scheduling: SEMANTICS sections 3 and 4 from the live
 * credentials of sender and target.
 *
 * The capability module's hooks run before ours and stop the LSM chain
 * when they refuse, so the decision is taken and recorded in fentry
 * programs on the security_task_*() functions, which run before any LSM;
 * the LSM programs only enforce what was recorded.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "fcaps.bpf.h"

/* Target's permitted set a subset of the caller's, or the caller holds @cap */
static __always_inline int fcaps_dominates(struct task_struct *p, int cap,
					   struct fcaps_decision *d)
{
	struct task_struct *task = bpf_get_current_task_btf();
	const struct cred *cred = task->cred;

	d->pid = bpf_get_current_pid_tgid();
	d->target = p->pid;
	d->pp = fcaps_cap64(cred->cap_permitted);
	d->pe = fcaps_cap64(cred->cap_effective);
	d->target_pp = fcaps_cap64(p->real_cred->cap_permitted);
#ifdef FCAPS_PLANT_SUBSET_INVERTED
	return !(d->pp & ~d->target_pp) || fcaps_has_cap(cred->cap_effective, cap);
#elif defined(FCAPS_PLANT_NO_CAP_KILL)
	return !(d->target_pp & ~d->pp) ||
	       (cap != CAP_KILL && fcaps_has_cap(cred->cap_effective, cap));
#else
	return !(d->target_pp & ~d->pp) || fcaps_has_cap(cred->cap_effective, cap);
#endif
}

/* The decision of SEMANTICS 3 (kill) or 4 (scheduling), filled into @d. */
static __always_inline int rule(__u32 hook, struct task_struct *p,
				const struct cred *explicit,
				const struct fcaps_config *cfg,
				struct fcaps_decision *d)
{
	if (hook == FCAPS_HOOK_KILL)
		return !fcaps_dominates(p, CAP_KILL, d) && cfg->kill && !explicit ?
		       -EPERM : 0;
	return fcaps_dominates(p, CAP_SYS_NICE, d) ? 0 : -EPERM;
}

static __always_inline void decide(__u32 hook, struct task_struct *p, int sig,
				   const struct cred *explicit)
{
	struct fcaps_config *cfg = fcaps_config();
	struct fcaps_decision d = {};
	int err;

	if (!cfg)
		return;
	/*
	 * A signal with explicit credentials comes from USB completion, which
	 * may interrupt a task between its own fentry and LSM hook: it must
	 * not take over that task's in-flight event.
	 */
	if (explicit)
		d.seq = __sync_fetch_and_add(&fcaps_next_seq, 1) + 1;
	else
		d.seq = fcaps_new_seq(bpf_get_current_pid_tgid());
	d.hook = hook;
	d.sig = sig;
	d.ret = rule(hook, p, explicit, cfg, &d);
	err = fcaps_record(&decisions, &d);
	fcaps_count(hook, d.ret, err);
}

/*
 * Enforce mode returns the recorded decision for the current task's event;
 * if the record is gone (an LRU map under pressure), the rule is applied
 * again rather than failing open.
 */
static __always_inline int enforce(__u32 hook, struct task_struct *p,
				   const struct cred *explicit, int ret)
{
	struct fcaps_config *cfg = fcaps_config();
	__u64 id = bpf_get_current_pid_tgid();
	__u64 seq = fcaps_seq_of(id);
	struct fcaps_decision *d, scratch = {};

	if (ret || !cfg || cfg->mode != FCAPS_MODE_ENFORCE)
		return ret;
	d = seq ? bpf_map_lookup_elem(&decisions, &seq) : NULL;
	if (!explicit)
		bpf_map_delete_elem(&inflight, &id);
	if (d) {
		if (d->hook == hook)
			return d->ret;
	}
	return rule(hook, p, explicit, cfg, &scratch);
}

SEC("fentry/security_task_kill")
int BPF_PROG(fcaps_kill_decide, struct task_struct *p,
	     struct kernel_siginfo *info, int sig, const struct cred *cred)
{
	decide(FCAPS_HOOK_KILL, p, sig, cred);
	return 0;
}

SEC("lsm/task_kill")
int BPF_PROG(fcaps_kill_enforce, struct task_struct *p,
	     struct kernel_siginfo *info, int sig, const struct cred *cred, int ret)
{
	return enforce(FCAPS_HOOK_KILL, p, cred, ret);
}

SEC("fentry/security_task_setscheduler")
int BPF_PROG(fcaps_setscheduler_decide, struct task_struct *p)
{
	decide(FCAPS_HOOK_SETSCHEDULER, p, 0, NULL);
	return 0;
}

SEC("lsm/task_setscheduler")
int BPF_PROG(fcaps_setscheduler_enforce, struct task_struct *p, int ret)
{
	return enforce(FCAPS_HOOK_SETSCHEDULER, p, NULL, ret);
}

SEC("fentry/security_task_setnice")
int BPF_PROG(fcaps_setnice_decide, struct task_struct *p, int nice)
{
	decide(FCAPS_HOOK_SETNICE, p, 0, NULL);
	return 0;
}

SEC("lsm/task_setnice")
int BPF_PROG(fcaps_setnice_enforce, struct task_struct *p, int nice, int ret)
{
	return enforce(FCAPS_HOOK_SETNICE, p, NULL, ret);
}

SEC("fentry/security_task_setioprio")
int BPF_PROG(fcaps_setioprio_decide, struct task_struct *p, int ioprio)
{
	decide(FCAPS_HOOK_SETIOPRIO, p, 0, NULL);
	return 0;
}

SEC("lsm/task_setioprio")
int BPF_PROG(fcaps_setioprio_enforce, struct task_struct *p, int ioprio, int ret)
{
	return enforce(FCAPS_HOOK_SETIOPRIO, p, NULL, ret);
}
