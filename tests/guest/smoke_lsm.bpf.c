// SPDX-License-Identifier: GPL-2.0
/* Pipeline smoke test: a BPF LSM program that counts the execs of one
 * process's children and denies one marked signal to one marked target. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#define EPERM 1

const volatile __u32 parent_tgid;	/* set before load */
__u64 execs;				/* children's execs seen */
__u32 deny_target_tgid;			/* 0: deny nothing */
int deny_sig;

SEC("lsm/bprm_check_security")
int BPF_PROG(smoke_count_exec, struct linux_binprm *bprm, int ret)
{
	struct task_struct *task = bpf_get_current_task_btf();

	if (task->real_parent->tgid == parent_tgid)
		__sync_fetch_and_add(&execs, 1);
	return ret;
}

SEC("lsm/task_kill")
int BPF_PROG(smoke_deny_signal, struct task_struct *p,
	     struct kernel_siginfo *info, int sig, const struct cred *cred,
	     int ret)
{
	if (ret)
		return ret;
	if (deny_target_tgid && p->tgid == deny_target_tgid && sig == deny_sig)
		return -EPERM;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
