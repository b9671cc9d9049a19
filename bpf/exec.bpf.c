// SPDX-License-Identifier: GPL-2.0
/*
 * Exec: decide what SEMANTICS section 2 decides for the final binary, from
 * the policy map, and predict the credentials the kernel would give. BPF
 * cannot raise capabilities; it can refuse the exec and set AT_SECURE.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "fcaps.bpf.h"

/* One event per execve, however many interpreters it goes through. */
SEC("lsm/bprm_creds_for_exec")
int BPF_PROG(fcaps_exec_begin, struct linux_binprm *bprm, int ret)
{
	fcaps_new_seq((__u64)bprm);
	return ret;
}

/* The unsafe-exec downgrade, as 6.1's cap_bprm_creds_from_file() does it. */
static __always_inline void downgrade(struct linux_binprm *bprm,
				      struct task_struct *task,
				      const struct cred *old, int setid,
				      struct fcaps_decision *d)
{
	__u64 old_pp = fcaps_cap64(old->cap_permitted);
	const struct cred *tracer = task->ptracer_cred;
	int tracer_capable = !tracer || fcaps_has_cap(tracer->cap_effective,
						       CAP_SYS_PTRACE);

	if (!(setid || (d->pp & ~old_pp)))
		return;
	if (!((bprm->unsafe & ~LSM_UNSAFE_PTRACE) || !tracer_capable))
		return;
	if (!fcaps_has_cap(old->cap_effective, CAP_SETUID) ||
	    (bprm->unsafe & LSM_UNSAFE_NO_NEW_PRIVS))
		d->euid = d->uid;
	d->pp &= old_pp;
}

static __always_inline void decide(struct linux_binprm *bprm,
				   const struct fcaps_config *cfg,
				   struct fcaps_decision *d)
{
	struct task_struct *task = bpf_get_current_task_btf();
	const struct cred *old = task->cred;
	struct file *file = bprm->file;
	struct inode *inode = file->f_inode;
	struct fcaps_file_key key = {};
	struct fcaps_policy_value *pol;
	struct fcaps_sets f = {};
	__u32 mode = inode->i_mode, egid, gid = old->gid.val;
	__u64 pi = fcaps_cap64(old->cap_inheritable);
	__u64 bset = fcaps_cap64(old->cap_bset);
	int setid, effective, suid_ok;

	key.dev = inode->i_sb->s_dev;
	key.ino = inode->i_ino;
	d->dev = key.dev;
	d->ino = key.ino;
	d->nosuid = !!(file->f_path.mnt->mnt_flags & MNT_NOSUID);

	/* bprm_fill_uid(), which runs after this hook: no setid on a nosuid
	 * mount or under no_new_privs */
	d->uid = old->uid.val;
	d->euid = old->euid.val;
	egid = old->egid.val;
	suid_ok = !d->nosuid && !(bprm->unsafe & LSM_UNSAFE_NO_NEW_PRIVS);
	if (suid_ok && (mode & S_ISUID))
		d->euid = inode->i_uid.val;
	if (suid_ok && (mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP))
		egid = inode->i_gid.val;
	setid = d->euid != d->uid || egid != gid;
	d->pi = pi;

	pol = bpf_map_lookup_elem(&policy, &key);
#ifdef FCAPS_PLANT_IGNORE_NOSUID
	if (pol && cfg->exec) {
#else
	if (pol && cfg->exec && (!d->nosuid || cfg->nosuid_ignore)) {
#endif
		d->tag = fcaps_le32(pol->value);
		d->form = fcaps_decode(pol->value, pol->len, &f);
	}
	if (d->form == FCAPS_MALFORMED) {
		d->legacy = 1;
		d->ret = -EPERM;
		return;
	}
	if (d->form == FCAPS_WELL_FORMED) {
		/* SEMANTICS 2.3-2.7: the file's sets overwrite root's */
		d->legacy = 1;
		d->fe = f.effective;
		d->fp = f.permitted;
		d->fi = f.inheritable;
		d->pp = (f.permitted & bset) | (f.inheritable & pi);
		downgrade(bprm, task, old, setid, d);
#ifdef FCAPS_PLANT_IGNORE_FE
		d->pe = d->pp;
#else
		d->pe = d->pp & f.effective;
#endif
		d->secureexec = setid ||
			(d->uid != 0 && (f.effective | f.permitted | f.inheritable));
		return;
	}

	/* 6.1's rules for a file without file capabilities */
	effective = d->euid == 0;
	if (d->euid == 0 || d->uid == 0)
		d->pp = bset | pi;
	d->pa = setid ? 0 : fcaps_cap64(old->cap_ambient);
	downgrade(bprm, task, old, setid, d);
	d->pp |= d->pa;
	d->pe = effective ? d->pp : d->pa;
	d->secureexec = setid || (d->uid != 0 && (effective || (d->pp & ~d->pa)));
}

/*
 * Runs for the script and again for each interpreter, so the last record
 * is the final binary's. Nothing before it can refuse the exec (the
 * capability module has no bprm_check_security hook), so every exec gets a
 * BPF decision here, in shadow mode too.
 */
SEC("lsm/bprm_check_security")
int BPF_PROG(fcaps_exec_check, struct linux_binprm *bprm, int ret)
{
	struct fcaps_config *cfg = fcaps_config();
	struct fcaps_decision d = {};
	int err;

	if (!cfg)
		return ret;
	d.seq = fcaps_seq_of((__u64)bprm);
	if (!d.seq)
		d.seq = fcaps_new_seq((__u64)bprm);
	d.hook = FCAPS_HOOK_EXEC;
	d.pid = bpf_get_current_pid_tgid();
	decide(bprm, cfg, &d);
	err = fcaps_record(&decisions, &d);
	fcaps_count(FCAPS_HOOK_EXEC, d.ret, err);
	return ret;
}

/*
 * Enforcement waits for the final binary: a script's own value must not
 * refuse or mark an exec that the interpreter decides. This hook runs once,
 * for the final binary, after the capability module's.
 */
SEC("lsm/bprm_creds_from_file")
int BPF_PROG(fcaps_exec_enforce, struct linux_binprm *bprm, struct file *file,
	     int ret)
{
	struct fcaps_config *cfg = fcaps_config();
	__u64 key = (__u64)bprm, seq = fcaps_seq_of(key);
	struct fcaps_decision *d, scratch = {};
	int decision, secureexec;

	if (ret || !cfg || cfg->mode != FCAPS_MODE_ENFORCE)
		return ret;
	d = seq ? bpf_map_lookup_elem(&decisions, &seq) : NULL;
	bpf_map_delete_elem(&inflight, &key);	/* the kernel's tracepoint has run */
	if (d) {
		decision = d->ret;
		secureexec = d->secureexec;
	} else {
		/* the record is gone (LRU): decide again rather than fail open */
		decide(bprm, cfg, &scratch);
		decision = scratch.ret;
		secureexec = scratch.secureexec;
	}
	if (decision)
		return decision;
	if (secureexec)
		bpf_bprm_opts_set(bprm, BPF_F_BPRM_SECUREEXEC);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
