// SPDX-License-Identifier: GPL-2.0
/*
 * The patched kernel's own decisions, from its fcaps_exec and fcaps_kill
 * tracepoints, copied into kdecisions under the seq of the same event in
 * decisions. The loader loads these programs only where the tracepoints
 * exist.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "fcaps.bpf.h"

SEC("tp_btf/fcaps_exec")
int BPF_PROG(fcaps_kernel_exec, struct linux_binprm *bprm, struct file *file,
	     struct cpu_vfs_cap_legacy *fcaps, bool legacy, int ret)
{
	struct inode *inode = file->f_inode;
	const struct cred *new = bprm->cred;
	struct fcaps_decision d = {};

	d.seq = fcaps_seq_of((__u64)bprm);
	d.hook = FCAPS_HOOK_EXEC;
	d.pid = bpf_get_current_pid_tgid();
	d.ret = ret;
	d.legacy = legacy;
	d.tag = fcaps->tag;
	d.form = !legacy ? FCAPS_NOT_LEGACY :
		 ret == -EPERM ? FCAPS_MALFORMED : FCAPS_WELL_FORMED;
	d.dev = inode->i_sb->s_dev;
	d.ino = inode->i_ino;
	d.nosuid = !!(file->f_path.mnt->mnt_flags & MNT_NOSUID);
	d.fe = fcaps_cap64(fcaps->effective);
	d.fp = fcaps_cap64(fcaps->permitted);
	d.fi = fcaps_cap64(fcaps->inheritable);
	d.uid = new->uid.val;
	d.euid = new->euid.val;
	d.pe = fcaps_cap64(new->cap_effective);
	d.pp = fcaps_cap64(new->cap_permitted);
	d.pi = fcaps_cap64(new->cap_inheritable);
	d.pa = fcaps_cap64(new->cap_ambient);
	d.secureexec = BPF_CORE_READ_BITFIELD(bprm, secureexec);
	if (d.seq)
		fcaps_record(&kdecisions, &d);
	return 0;
}

SEC("tp_btf/fcaps_kill")
int BPF_PROG(fcaps_kernel_kill, struct task_struct *p, const struct cred *tcred,
	     int sig, const struct cred *cred, int ret)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct fcaps_decision d = {};

	d.seq = fcaps_seq_of(bpf_get_current_pid_tgid());
	d.hook = FCAPS_HOOK_KILL;
	d.pid = bpf_get_current_pid_tgid();
	d.target = p->pid;
	d.sig = sig;
	d.ret = ret;
	d.pp = fcaps_cap64(task->cred->cap_permitted);
	d.pe = fcaps_cap64(task->cred->cap_effective);
	d.target_pp = fcaps_cap64(tcred->cap_permitted);
	if (d.seq)
		fcaps_record(&kdecisions, &d);
	return 0;
}
