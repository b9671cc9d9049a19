// SPDX-License-Identifier: GPL-2.0
/*
 * Dumpability, as the kernel path leaves it. commit_creds() makes a
 * process non-dumpable when an exec grows its pP, and from then on
 * ptrace_may_access() (ptrace attach, /proc/PID/mem, environ, fd, ...)
 * asks CAP_SYS_PTRACE over its mm of anyone else, its own uid included.
 * On the kernel path a capped root whose exec raises pP above its capped
 * one, and a uid that gains capabilities from a legacy file, become
 * non-dumpable; under BPF the live pP never grows there (a capped root's
 * stays full, BPF cannot grant), so the kernel leaves them dumpable. Here
 * the exec's growth is taken again with the sets the kernel path would
 * hold (the ceilings'), kept per task like the mm's flag (copied at fork,
 * reset by every exec and by prctl(PR_SET_DUMPABLE, 1)), and the access
 * check refused as ptrace_may_access() would. Enforce mode only.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "ceiling.bpf.h"

#define PR_SET_DUMPABLE 4	/* include/uapi/linux/prctl.h */
#define SUID_DUMP_USER 1	/* include/linux/sched/coredump.h */

/* tasks the kernel path would have left non-dumpable */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u8);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} nodump SEC(".maps");

/* set once a task was flagged: until then no program looks anything up */
__u64 nodump_seen;

/* @cred's pP as the kernel path would hold it: its ceiling's, if capped */
static __always_inline __u64 kernel_path_pp(const struct cred *cred)
{
	struct fcaps_ceiling *c = ceiling_of(ceiling_key(cred));
	__u64 pp;

	if (c) {
		pp = *(volatile __u64 *)&c->pp;
		return pp;
	}
	return fcaps_cap64(cred->cap_permitted);
}

static __always_inline void flag(struct task_struct *task)
{
	__u8 *v = bpf_task_storage_get(&nodump, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);

	/* no room: the task stays dumpable, as it is under BPF without this */
	if (v) {
		*v = 1;
		nodump_seen = 1;
	}
}

static __always_inline int flagged(struct task_struct *task)
{
	return *(volatile __u64 *)&nodump_seen && bpf_task_storage_get(&nodump, task, 0, 0);
}

/* past the exec's point of no return, just before commit_creds() */
SEC("lsm/bprm_committing_creds")
int BPF_PROG(fcaps_ceiling_dumpable_exec, struct linux_binprm *bprm)
{
	struct task_struct *task = bpf_get_current_task_btf();

	if (!fcaps_ceilings_live() && !*(volatile __u64 *)&nodump_seen)
		return 0;
	if (kernel_path_pp(bprm->cred) & ~kernel_path_pp(task->cred))
		flag(task);
	else if (flagged(task))
		bpf_task_storage_delete(&nodump, task);
	return 0;
}

/* fork copies the mm's flags, threads share them */
SEC("lsm/task_alloc")
int BPF_PROG(fcaps_ceiling_dumpable_fork, struct task_struct *task, unsigned long clone_flags)
{
	if (flagged(bpf_get_current_task_btf()))
		flag(task);
	return 0;
}

SEC("fmod_ret/security_task_prctl")
int BPF_PROG(fcaps_ceiling_dumpable_prctl, int option, unsigned long arg2, unsigned long arg3,
	     unsigned long arg4, unsigned long arg5, int ret)
{
	struct task_struct *task = bpf_get_current_task_btf();

	if (!ret && option == PR_SET_DUMPABLE && arg2 == SUID_DUMP_USER && flagged(task))
		bpf_task_storage_delete(&nodump, task);
	return ret;
}

/* ptrace_may_access(): a non-dumpable mm needs CAP_SYS_PTRACE over its namespace */
SEC("lsm/ptrace_access_check")
int BPF_PROG(fcaps_ceiling_dumpable_ptrace, struct task_struct *child, unsigned int mode, int ret)
{
	const struct cred *cred;
	struct mm_struct *mm;

	if (ret || !flagged(child) || !enforcing())
		return ret;
	mm = child->mm;
	if (!mm)
		return 0;
	cred = bpf_get_current_task_btf()->cred;
	if (fcaps_ns_capable_capped(cred, mm->user_ns, CAP_SYS_PTRACE))
		return 0;
	return fcaps_plant(DUMPABLE_IGNORED) ? 0 : -EPERM;
}

char LICENSE[] SEC("license") = "GPL";
