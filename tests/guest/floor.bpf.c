// SPDX-License-Identifier: GPL-2.0
/*
 * The benchmark's floor (make bench): empty programs on exactly the hooks
 * the fcaps decision programs use (bpf/signal.bpf.c, bpf/exec.bpf.c), so
 * that the cost of a trampoline and an LSM program call is measured apart
 * from the cost of what fcaps does in them. Each returns what it is given
 * (fmod_ret: 0 or an earlier program's result, which must not be replaced;
 * lsm: the earlier LSMs' result) and touches nothing.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

SEC("fmod_ret/security_task_kill")
int BPF_PROG(floor_kill, struct task_struct *p, struct kernel_siginfo *info,
	     int sig, const struct cred *cred, int ret)
{
	return ret;
}

SEC("fmod_ret/security_task_setscheduler")
int BPF_PROG(floor_setscheduler, struct task_struct *p, int ret)
{
	return ret;
}

SEC("fmod_ret/security_task_setnice")
int BPF_PROG(floor_setnice, struct task_struct *p, int nice, int ret)
{
	return ret;
}

SEC("fmod_ret/security_task_setioprio")
int BPF_PROG(floor_setioprio, struct task_struct *p, int ioprio, int ret)
{
	return ret;
}

SEC("lsm/bprm_creds_for_exec")
int BPF_PROG(floor_exec_begin, struct linux_binprm *bprm, int ret)
{
	return ret;
}

SEC("lsm/bprm_check_security")
int BPF_PROG(floor_exec_check, struct linux_binprm *bprm, int ret)
{
	return ret;
}

SEC("lsm/bprm_creds_from_file")
int BPF_PROG(floor_exec_enforce, struct linux_binprm *bprm, struct file *file,
	     int ret)
{
	return ret;
}

char LICENSE[] SEC("license") = "GPL";
