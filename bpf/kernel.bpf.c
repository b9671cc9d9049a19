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

	if (!cfg || cfg->record != FCAPS_RECORD_ALL)
		return 0;
	return fcaps_exec_seq_get(task->pid);
}

/* The seq BPF gave this very call (fcaps_call_take()); 0 unless all are kept */
static __always_inline __u64 call_seq(const struct fcaps_call_ids *ids, __u32 hook, int sig)
{
	struct fcaps_config *cfg = fcaps_config();
	__u64 seq;

	if (!cfg || cfg->record != FCAPS_RECORD_ALL)
		return 0;
	seq = fcaps_call_take(ids->pid, hook, ids->target, sig);
	if (fcaps_plant(SEQ_SKEW) && seq)
		seq++;
	return seq;
}

/* A kernel record that does not fit is counted as an error of its hook. */
static __always_inline void count_lost(__u32 hook)
{
	struct fcaps_counters *c = bpf_map_lookup_elem(&counters, &hook);

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
	fcaps_inode_key(inode, &d.dev, &d.ino);
	d.nosuid = !!(file->f_path.mnt->mnt_flags & MNT_NOSUID);
	d.unsafe = bprm->unsafe;
	d.fe = fcaps_cap64(fcaps->effective);
	d.fp = fcaps_cap64(fcaps->permitted);
	d.fi = fcaps_cap64(fcaps->inheritable);
	d.uid = new->uid.val;
	d.root_uid = fcaps_ns_root(new->user_ns);
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
	d.live_old_pp = d.old_pp;
	d.bset = fcaps_cap64(new->cap_bset);
	d.secureexec = BPF_CORE_READ_BITFIELD(bprm, secureexec);
	if (d.seq && fcaps_record(&kdecisions, &d))
		count_lost(FCAPS_HOOK_EXEC);
	return 0;
}

/*
 * A tracepoint argument that may be NULL, as a number: 6.12's verifier takes
 * every pointer a raw tracepoint passes for non-NULL (btf_ctx_access(),
 * unless listed in raw_tp_null_args[]) and drops the program's own test.
 */
static __always_inline __u64 tp_arg_value(const unsigned long long *ctx, int n)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), &ctx[n]);
	return v;
}

SEC("tp_btf/fcaps_kill")
int BPF_PROG(fcaps_kernel_kill, struct task_struct *p, const struct cred *tcred,
	     int sig, const struct cred *cred, int ret)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 explicit = tp_arg_value(ctx, 3);	/* cred */
	struct fcaps_call_ids ids;
	struct fcaps_decision *r;
	__u64 seq;

	fcaps_call_ids(&ids, task, p);
	if (explicit)
		seq = fcaps_explicit_call.cred == explicit && fcaps_config() ?
		      fcaps_explicit_call.seq : 0;
	else
		seq = call_seq(&ids, FCAPS_HOOK_KILL, sig);
	if (!seq)
		return 0;
	r = fcaps_free_slot(&kdecisions, seq);
	if (!r) {
		count_lost(FCAPS_HOOK_KILL);
		return 0;
	}
	fcaps_call_facts(r, FCAPS_HOOK_KILL, &ids, sig, explicit ? cred : task->cred, tcred,
			 !!explicit, CAP_KILL, 0);
	fcaps_call_commit(r, seq, ret);
	return 0;
}

SEC("tp_btf/fcaps_sched")
int BPF_PROG(fcaps_kernel_sched, struct task_struct *p, const struct cred *tcred,
	     int op, int ret)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 hook = FCAPS_HOOK_SETSCHEDULER + op;	/* enum fcaps_sched_op order */
	struct fcaps_call_ids ids;
	struct fcaps_decision *r;
	__u64 seq;

	fcaps_call_ids(&ids, task, p);
	seq = call_seq(&ids, hook, 0);
	if (!seq)
		return 0;
	r = fcaps_free_slot(&kdecisions, seq);
	if (!r) {
		count_lost(hook);
		return 0;
	}
	fcaps_call_facts(r, hook, &ids, 0, task->cred, tcred, 0, CAP_SYS_NICE, 0);
	fcaps_call_commit(r, seq, ret);
	return 0;
}

/* prlimit and SIGIO (enum fcaps_channel_op order: PRLIMIT, SIGIO) */
SEC("tp_btf/fcaps_channel")
int BPF_PROG(fcaps_kernel_channel, int op, struct task_struct *p, const struct cred *scred,
	     const struct cred *tcred, int sig, int ret)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 hook = op ? FCAPS_HOOK_SIGIO : FCAPS_HOOK_PRLIMIT;
	struct fcaps_call_ids ids = { .pid = task->pid };
	struct fcaps_decision *r;
	__u64 seq;

	if (tp_arg_value(ctx, 1)) {	/* p: NULL for prlimit */
		ids.target = p->pid;
		ids.target_tgid = p->tgid;
	}
	seq = call_seq(&ids, hook, sig);
	if (!seq)
		return 0;
	r = fcaps_free_slot(&kdecisions, seq);
	if (!r) {
		count_lost(hook);
		return 0;
	}
	fcaps_call_facts(r, hook, &ids, sig, scred, tcred, 0, CAP_KILL, 0);
	fcaps_call_commit(r, seq, ret);
	return 0;
}
