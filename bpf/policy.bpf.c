// SPDX-License-Identifier: GPL-2.0
/*
 * Keep the policy map true while the system runs: a security.capability
 * write or removal updates or drops the file's entry. Legacy-tagged values
 * are kept raw, malformed ones included; any other value drops the entry.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "fcaps.bpf.h"

static __always_inline int is_caps_name(const char *name)
{
	static const char want[] = FCAPS_XATTR_NAME;
	char got[sizeof(want) + 1] = {};	/* room to see a longer name */

	if (bpf_probe_read_kernel_str(got, sizeof(got), name) != sizeof(want))
		return 0;
	for (int i = 0; i < sizeof(want); i++)
		if (got[i] != want[i])
			return 0;
	return 1;
}

static __always_inline void file_key(struct dentry *dentry,
				     struct fcaps_file_key *key)
{
	struct inode *inode = BPF_CORE_READ(dentry, d_inode);

	key->dev = BPF_CORE_READ(inode, i_sb, s_dev);
	key->ino = BPF_CORE_READ(inode, i_ino);
}

/*
 * 6.1's verifier refuses LSM and fentry programs that load a 'const void *'
 * or 'const char *' argument, and these programs need the name and value,
 * so they are kprobes, reading through helpers. The post-setxattr hook runs
 * only after a successful write, with the stored value.
 */
SEC("kprobe/security_inode_post_setxattr")
int BPF_KPROBE(fcaps_policy_set, struct dentry *dentry, const char *name,
	       const void *value, size_t size)
{
	struct fcaps_policy_value v = {};
	struct fcaps_file_key key = {};
	__u32 tag, n;
	int err = 0;

	if (!is_caps_name(name))
		return 0;
	file_key(dentry, &key);
	v.len = size;
	n = size > FCAPS_MAX_SIZE ? FCAPS_MAX_SIZE : size;
	if (n >= 4 && bpf_probe_read_kernel(v.value, n, value))
		err = 1;
	tag = fcaps_le32(v.value);
	if (!err && size >= 4 && (tag == FCAPS_V1_TAG || tag == FCAPS_V3_TAG))
		err = bpf_map_update_elem(&policy, &key, &v, BPF_ANY) != 0;
	else
		bpf_map_delete_elem(&policy, &key);
	fcaps_count(FCAPS_HOOK_XATTR, 0, err);
	return 0;
}

/*
 * A removal drops the entry only once it has succeeded. __vfs_removexattr
 * is where the value goes, for removexattr(2) and for the kernel's own
 * removals (cap_inode_killpriv on chown or write).
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, struct fcaps_file_key);
} removing SEC(".maps");

SEC("kprobe/__vfs_removexattr")
int BPF_KPROBE(fcaps_policy_remove, struct user_namespace *mnt_userns,
	       struct dentry *dentry, const char *name)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct fcaps_file_key key = {};

	if (!is_caps_name(name))
		return 0;
	file_key(dentry, &key);
	bpf_map_update_elem(&removing, &id, &key, BPF_ANY);
	return 0;
}

SEC("kretprobe/__vfs_removexattr")
int BPF_KRETPROBE(fcaps_policy_removed, int ret)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct fcaps_file_key *key = bpf_map_lookup_elem(&removing, &id);

	if (!key)
		return 0;
	if (!ret)
		bpf_map_delete_elem(&policy, key);
	bpf_map_delete_elem(&removing, &id);
	fcaps_count(FCAPS_HOOK_XATTR, 0, 0);
	return 0;
}
