// SPDX-License-Identifier: GPL-2.0
/*
 * SEMANTICS 7: the knobs that would silence the programs, refused at open
 * for writing to a caller without the capability each needs:
 * kernel.ftrace_enabled (every trampoline) and debugfs kprobes/enabled
 * (the policy's sync kprobe) CAP_SYS_ADMIN; kernel.modprobe CAP_SYS_MODULE,
 * as the kernel path asks (its helper runs with every capability). At
 * open, where the cost falls on opens alone, not on every read and write
 * (file_permission): a descriptor opened before is the opener's to give.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "integrity.bpf.h"

#define CAP_SYS_MODULE	16
#define DEBUGFS_MAGIC	0x64626720

extern const void proc_sys_file_operations __ksym;
extern const void ftrace_enabled __ksym __weak;
extern const void modprobe_path __ksym __weak;
extern const void fops_kp __ksym __weak;	/* debugfs kprobes/enabled */

/* The knob @file writes, if it silences BPF, with the capability it needs */
static __always_inline __u32 knob_of(struct file *file, int *cap)
{
	struct inode *inode = file->f_inode;

	*cap = CAP_SYS_ADMIN;
	if (file->f_op == &proc_sys_file_operations) {
		struct proc_inode *pi = (void *)((unsigned long)inode -
						 bpf_core_field_offset(struct proc_inode, vfs_inode));
		const void *data = BPF_CORE_READ(pi, sysctl_entry, data);

		if (data && data == &ftrace_enabled)
			return FCAPS_KNOB_FTRACE;
		*cap = CAP_SYS_MODULE;
		return data && data == &modprobe_path ? FCAPS_KNOB_MODPROBE : 0;
	}
	if (inode->i_sb->s_magic == DEBUGFS_MAGIC && &fops_kp) {
		/* the real operations, tagged with bit 0 until the first open
		 * puts them in a debugfs_fsdata (whose first member they are) */
		unsigned long fsdata = (unsigned long)file->f_path.dentry->d_fsdata;
		const void *real = (const void *)(fsdata & ~1UL);

		if (!(fsdata & 1) && bpf_probe_read_kernel(&real, sizeof(real), real))
			return 0;
		return real == &fops_kp ? FCAPS_KNOB_KPROBES : 0;
	}
	return 0;
}

SEC("lsm/file_open")
int BPF_PROG(fcaps_integrity_open, struct file *file, int ret)
{
	struct fcaps_config *cfg;
	__u32 knob;
	int cap;

	if (ret || !(file->f_mode & FMODE_WRITE))
		return ret;
	knob = knob_of(file, &cap);
	if (!knob)
		return fcaps_ceiling_uid_map(file);
	cfg = fcaps_config();
	if (!cfg || may(current_cred(), cap))
		return 0;
	return refuse(cfg, FCAPS_OP_KNOB, knob);
}

char LICENSE[] SEC("license") = "GPL";
