// SPDX-License-Identifier: GPL-2.0
/*
 * Exec: decide what SEMANTICS section 2 decides for the file the new
 * credentials come from, from the policy map, and predict the credentials
 * the kernel would give (6.1's rules for a value that is not legacy). BPF
 * cannot raise capabilities; it can refuse the exec and set AT_SECURE.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "ceiling.bpf.h"

/* One event per execve, however many interpreters it goes through. */
SEC("lsm/bprm_creds_for_exec")
int BPF_PROG(fcaps_exec_begin, struct linux_binprm *bprm, int ret)
{
	struct fcaps_config *cfg = fcaps_config();

	if (!cfg || cfg->record == FCAPS_RECORD_NONE)
		return ret;
	fcaps_exec_seq_set(bpf_get_current_task_btf()->pid, fcaps_new_seq());
	return ret;
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
	struct task_struct *task = bpf_get_current_task_btf();
	struct fcaps_config *cfg = fcaps_config();
	struct fcaps_decision d = {};
	struct file *file;
	int err;

	if (!cfg || cfg->record == FCAPS_RECORD_NONE)
		return ret;
	file = creds_file(bprm);
	if (!file)
		return ret;
	d.pid = task->pid;
	d.seq = fcaps_exec_seq_get(d.pid);
	if (!d.seq) {
		/* begun before the load, or its slot taken by another exec */
		d.seq = fcaps_new_seq();
		fcaps_exec_seq_set(d.pid, d.seq);
	}
	d.hook = FCAPS_HOOK_EXEC;
	decide(bprm, file, cfg, &d);
	if (!fcaps_recording(cfg, d.ret))
		return ret;
	err = fcaps_record(&decisions, &d);
	fcaps_count(FCAPS_HOOK_EXEC, d.ret, err);
	return ret;
}

/*
 * Enforcement waits for the final binary and decides again on the file
 * the kernel takes the credentials from, never on a stored record: a
 * script's own value must not refuse or mark an exec that the interpreter
 * decides, and nothing left behind by another exec can leak in. The same
 * decision, from the sets a ceiling leaves the old credentials, caps the
 * new ones (ceiling.bpf.h): one program and one decision an exec.
 */
SEC("lsm/bprm_creds_from_file")
int BPF_PROG(fcaps_exec_enforce, struct linux_binprm *bprm, struct file *file,
	     int ret)
{
	struct fcaps_config *cfg = fcaps_config();
	const struct cred *new = bprm->cred;
	__u64 key = ceiling_key(new);
	struct fcaps_decision d = {};
	struct fcaps_ceiling *old;
	int refuse, secure;

	if (ret)
		return ret;
	old = ceiling_of(key);
	if (!cfg || cfg->mode != FCAPS_MODE_ENFORCE) {
		if (old)
			ceiling_drop(key);
		return 0;
	}
	decide_from(bprm, file, cfg, old, &d);
	/* 6.1's own formats are 6.1's to refuse: the kernel has done it already
	 * (and BPF cannot see every value 6.1 accepts, see FCAPS_LEN_UNREADABLE) */
	refuse = d.ret && d.legacy;
	secure = d.secureexec;
#ifdef FCAPS_PLANT_ENFORCE_EXEC
	refuse = secure = 0;	/* planted bug: the enforcing program allows everything */
#endif
	if (d.ret) {
		if (old)
			ceiling_drop(key);
		return refuse ? d.ret : 0;
	}
	if (secure)
		bpf_bprm_opts_set(bprm, BPF_F_BPRM_SECUREEXEC);
	return ceiling_exec(new, key, old, &d) ? -ENOMEM : 0;
}

char LICENSE[] SEC("license") = "GPL";
