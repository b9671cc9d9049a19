// SPDX-License-Identifier: GPL-2.0
/*
 * The patched kernel's own decisions, from its fcaps_exec, fcaps_kill and
 * fcaps_sched tracepoints, copied into kdecisions under the seq of the same
 * event in decisions. The loader loads these programs only where the
 * tracepoints exist. Everything here is read from the kernel's arguments;
 * nothing is computed by the BPF rules.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "fcaps.bpf.h"


/* The seq BPF gave this task's exec; 0 (no record) unless all are kept */
static __always_inline __u64 exec_seq(struct task_struct *task)
{
	struct fcaps_config *cfg = fcaps_config();
	struct fcaps_inflight *in;

	if (!cfg || cfg->record != FCAPS_RECORD_ALL)
		return 0;
	in = bpf_task_storage_get(&inflight, task, 0, 0);
	return in ? in->exec_seq : 0;
}

/* The seq BPF gave this very call (struct fcaps_call), taken once */
static __always_inline __u64 call_seq(struct task_struct *task, __u32 hook,
				      struct task_struct *p, int sig)
{
	struct fcaps_config *cfg = fcaps_config();
	struct fcaps_call *c;
	__u32 zero = 0;

	if (!cfg || cfg->record != FCAPS_RECORD_ALL)
		return 0;
	c = bpf_map_lookup_elem(&call_inflight, &zero);
	if (!c || c->task != (__u64)task || c->hook != hook || c->target != p->pid ||
	    c->sig != sig)
		return 0;
	c->task = 0;
#ifdef FCAPS_PLANT_SEQ_SKEW
	return c->seq + 1;	/* planted: join off by one */
#endif
	return c->seq;
}

/* A kernel record that does not fit is counted as an error of its hook. */
static __always_inline void record_kernel(struct fcaps_decision *d)
{
	struct fcaps_counters *c;
	__u32 hook = d->hook;

	if (!fcaps_record(&kdecisions, d))
		return;
	c = bpf_map_lookup_elem(&counters, &hook);
	if (c)
		c->errors++;
}

SEC("tp_btf/fcaps_exec")
int BPF_PROG(fcaps_kernel_exec, struct linux_binprm *bprm, struct file *file,
	     struct cpu_vfs_cap_legacy *fcaps, bool legacy, int ret)
{
	struct task_struct *task = bpf_get_current_task_btf();
	const struct cred *new = bprm->cred, *old = task->cred;
	struct inode *inode = file->f_inode;
	struct fcaps_decision d = {};

	d.seq = exec_seq(task);
	d.hook = FCAPS_HOOK_EXEC;
	d.pid = task->pid;
	d.ret = ret;
	d.legacy = legacy;
	d.tag = fcaps->tag;
	d.form = !legacy ? FCAPS_NOT_LEGACY :
		 ret == -EPERM ? FCAPS_MALFORMED : FCAPS_WELL_FORMED;
	d.dev = inode->i_sb->s_dev;
	d.ino = inode->i_ino;
	d.nosuid = !!(file->f_path.mnt->mnt_flags & MNT_NOSUID);
	d.unsafe = bprm->unsafe;
	d.fe = fcaps_cap64(fcaps->effective);
	d.fp = fcaps_cap64(fcaps->permitted);
	d.fi = fcaps_cap64(fcaps->inheritable);
	d.uid = new->uid.val;
	d.euid = new->euid.val;
	d.suid = new->suid.val;
	d.gid = new->gid.val;
	d.egid = new->egid.val;
	d.old_euid = old->euid.val;
	d.old_egid = old->egid.val;
	d.setid = d.euid != d.uid || d.egid != d.gid;
	d.securebits = new->securebits;
	d.pe = fcaps_cap64(new->cap_effective);
	d.pp = fcaps_cap64(new->cap_permitted);
	d.pi = fcaps_cap64(new->cap_inheritable);
	d.pa = fcaps_cap64(new->cap_ambient);
	d.old_pp = fcaps_cap64(old->cap_permitted);
	d.bset = fcaps_cap64(new->cap_bset);
	d.secureexec = BPF_CORE_READ_BITFIELD(bprm, secureexec);
	if (d.seq)
		record_kernel(&d);
	return 0;
}

/* Sender, target and the namespace facts the rule looks at */
static __always_inline void task_fields(struct task_struct *task,
					struct task_struct *p,
					const struct cred *scred,
					const struct cred *tcred, int cap,
					struct fcaps_decision *d)
{
	d->pid = task->pid;
	d->target = p->pid;
	d->target_tgid = p->tgid;
	d->pp = fcaps_cap64(scred->cap_permitted);
	d->pe = fcaps_cap64(scred->cap_effective);
	d->securebits = scred->securebits;
	d->target_pp = fcaps_cap64(tcred->cap_permitted);
	d->same_userns = scred->user_ns == tcred->user_ns;
	d->cap_in_target_ns = fcaps_ns_capable(scred, tcred->user_ns, cap);
}

SEC("tp_btf/fcaps_kill")
int BPF_PROG(fcaps_kernel_kill, struct task_struct *p, const struct cred *tcred,
	     int sig, const struct cred *cred, int ret)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct fcaps_decision d = {};
	struct fcaps_call *c;
	__u32 zero = 0;

	if (cred) {
		c = bpf_map_lookup_elem(&call_inflight, &zero);
		d.seq = c && c->cred == (__u64)cred && fcaps_config() ? c->explicit_seq : 0;
	} else {
		d.seq = call_seq(task, FCAPS_HOOK_KILL, p, sig);
	}
	if (!d.seq)
		return 0;
	d.hook = FCAPS_HOOK_KILL;
	d.sig = sig;
	d.ret = ret;
	d.explicit_cred = !!cred;
	task_fields(task, p, cred ? cred : task->cred, tcred, CAP_KILL, &d);
	record_kernel(&d);
	return 0;
}

SEC("tp_btf/fcaps_sched")
int BPF_PROG(fcaps_kernel_sched, struct task_struct *p, const struct cred *tcred,
	     int op, int ret)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct fcaps_decision d = {};

	d.hook = FCAPS_HOOK_SETSCHEDULER + op;	/* enum fcaps_sched_op order */
	d.seq = call_seq(task, d.hook, p, 0);
	if (!d.seq)
		return 0;
	d.ret = ret;
	task_fields(task, p, task->cred, tcred, CAP_SYS_NICE, &d);
	record_kernel(&d);
	return 0;
}
