// SPDX-License-Identifier: GPL-2.0
/*
 * Keep the policy map true while the system runs, and keep the attribute
 * it mirrors out of unprivileged hands (SEMANTICS 6).
 *
 * Sync: a security.capability write stores the value raw, whatever its
 * format; a removal that succeeded (removexattr(2), the kernel's own on
 * chown or write, an overlay passing it down) drops it; so does freeing
 * an inode with no links left, or its superblock, so that a reused inode
 * or device number inherits nothing.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "fcaps.bpf.h"

/* Set by the loader: the kernel's LSM layer runs the capability module's
 * xattr checks itself (it has inode_xattr_skipcap, kernel-patch 0001). */
const volatile __u32 lsm_runs_cap_xattr;

#define SEC_PREFIX "security."
#define NAME_MAX_READ 32

/* FCAPS_GUARD_CAPS: security.capability, FCAPS_GUARD_OTHER: another
 * security.* name, 0: anything else */
static __always_inline int xattr_kind(const char *name)
{
	static const char caps[] = FCAPS_XATTR_NAME;
	char got[NAME_MAX_READ] = {};
	long n = bpf_probe_read_kernel_str(got, sizeof(got), name);
	int i;

	if (n < (long)sizeof(SEC_PREFIX))
		return 0;
	for (i = 0; i < sizeof(SEC_PREFIX) - 1; i++)
		if (got[i] != SEC_PREFIX[i])
			return 0;
	if (n != sizeof(caps))
		return FCAPS_GUARD_OTHER;
	for (i = 0; i < sizeof(caps); i++)
		if (got[i] != caps[i])
			return FCAPS_GUARD_OTHER;
	return FCAPS_GUARD_CAPS;
}

static __always_inline void file_key(struct dentry *dentry,
				     struct fcaps_file_key *key)
{
	/* the kprobe's dentry is a number, not a BTF pointer: probed reads */
	fcaps_inode_key_probed(BPF_CORE_READ(dentry, d_inode), &key->dev, &key->ino);
}

/* Write @key's entry (in the map its value belongs to, out of the other)
 * in the policy and in the one being imported, if any */
static __always_inline int update_gens(struct fcaps_file_key *key,
				       struct fcaps_policy_value *v)
{
	struct fcaps_config *cfg = fcaps_config_raw();
	int legacy = fcaps_policy_is_legacy(v), err;
	void *map = legacy ? (void *)&policy : (void *)&policy61;
	void *other = legacy ? (void *)&policy61 : (void *)&policy;

	key->gen = cfg ? cfg->policy_gen : 0;
	bpf_map_delete_elem(other, key);
	err = bpf_map_update_elem(map, key, v, BPF_ANY) != 0;
	if (cfg && cfg->next_gen != cfg->policy_gen) {
		key->gen = cfg->next_gen;
		bpf_map_delete_elem(other, key);
		err |= bpf_map_update_elem(map, key, v, BPF_ANY) != 0;
	}
	return err;
}

/* Drop @key's entry from the policy and from the one being imported */
static __always_inline void delete_gens(struct fcaps_file_key *key)
{
	struct fcaps_config *cfg = fcaps_config_raw();

	key->gen = cfg ? cfg->policy_gen : 0;
	bpf_map_delete_elem(&policy, key);
	bpf_map_delete_elem(&policy61, key);
	if (cfg && cfg->next_gen != cfg->policy_gen) {
		key->gen = cfg->next_gen;
		bpf_map_delete_elem(&policy, key);
		bpf_map_delete_elem(&policy61, key);
	}
}

/*
 * A kprobe, as 6.1's verifier refuses a tracing program that loads a
 * 'const void *' argument, and the value is needed. The hook runs only
 * after a successful write, with the stored value.
 */
SEC("kprobe/security_inode_post_setxattr")
int BPF_KPROBE(fcaps_policy_set, struct dentry *dentry, const char *name,
	       const void *value, size_t size)
{
	struct fcaps_policy_value v = {};
	struct fcaps_file_key key = {};
	__u32 n;
	int err = 0;

	if (xattr_kind(name) != FCAPS_GUARD_CAPS)
		return 0;
	file_key(dentry, &key);
	v.len = size;
	n = size > FCAPS_MAX_SIZE ? FCAPS_MAX_SIZE : size;
	barrier_var(n);		/* keep the bound on the register passed */
	if (n > FCAPS_MAX_SIZE)
		n = FCAPS_MAX_SIZE;
	if (n && bpf_probe_read_kernel(v.value, n, value))
		err = 1;
	/* a full map loses this write: counted, and 'status' raises it (the
	 * legacy map fills only with privileged writers' values) */
	if (!err)
		err = update_gens(&key, &v);
	fcaps_count(FCAPS_HOOK_XATTR, 0, err);
	return 0;
}

/*
 * Values removed while a scan runs: the scan may have read one before it
 * went, and must not put it back (fcapsctl checks here before it writes
 * what it scanned). Cleared by fcapsctl when a scan begins.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FCAPS_MAX_TOMBSTONES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct fcaps_file_key);	/* gen 0 */
	__type(value, __u8);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} scan_removed SEC(".maps");

/* Arguments and result together: nested removals cannot mix them up. */
SEC("fexit/__vfs_removexattr")
int BPF_PROG(fcaps_policy_removed, struct user_namespace *mnt_userns,
	     struct dentry *dentry, const char *name, int ret)
{
	struct fcaps_file_key key = {};
	__u8 one = 1;
	int err = 0;

	if (ret || xattr_kind(name) != FCAPS_GUARD_CAPS)
		return 0;
	file_key(dentry, &key);
	delete_gens(&key);
	if (fcaps_config_raw()->scanning) {
		key.gen = 0;
		err = bpf_map_update_elem(&scan_removed, &key, &one, BPF_ANY) != 0;
	}
	fcaps_count(FCAPS_HOOK_XATTR, 0, err);
	return 0;
}

/* An inode freed with no links left: its number may be reused. */
SEC("fentry/security_inode_free")
int BPF_PROG(fcaps_policy_inode_free, struct inode *inode)
{
	struct fcaps_file_key key = {};

	/* an overlay's inode is no key (fcaps_inode_key()): its layer's
	 * inode is freed on its own */
	if (inode->i_nlink || inode->i_sb->s_magic == OVERLAYFS_SUPER_MAGIC)
		return 0;
	key.dev = inode->i_sb->s_dev;
	key.ino = inode->i_ino;
	delete_gens(&key);
	return 0;
}

static long drop_dev(struct bpf_map *map, const struct fcaps_file_key *key,
		     void *value, const __u32 *dev)
{
	if (key->dev == *dev)
		bpf_map_delete_elem(map, key);
	return 0;
}

/*
 * A superblock shutting down: its device number is given back once its
 * kill_sb() has done, and may be reused at once. Not at security_sb_free():
 * 6.12 frees the superblock from a work item, after a new mount may have
 * taken the number and had values written on it.
 */
SEC("fentry/generic_shutdown_super")
int BPF_PROG(fcaps_policy_sb_gone, struct super_block *sb)
{
	__u32 dev = sb->s_dev;

	/* never filled: no files of its own, and 6.12 makes one with a live
	 * filesystem's number (a device mounted again as another type) before
	 * it finds the device busy */
	if (!sb->s_root)
		return 0;

	bpf_for_each_map_elem(&policy, drop_dev, &dev, 0);
	bpf_for_each_map_elem(&policy61, drop_dev, &dev, 0);
	return 0;
}

/* capable_wrt_inode_uidgid(CAP_SETFCAP), as 6.1 asks for security.capability,
 * with pE as the ceiling of a capped file's runner leaves it, and the
 * owner and group as the mount's idmapping @idmap shows them */
static __always_inline int may_set_fcaps(__u64 idmap, struct inode *inode)
{
	const struct cred *cred = bpf_get_current_task_btf()->cred;
	struct user_namespace *ns = cred->user_ns;
	__u64 pe = fcaps_cap64(cred->cap_effective), pp = 0;
	struct fcaps_idmap m = {};
	__u32 vuid, vgid;

	fcaps_capped_sets(cred, &pp, &pe);
	if (!((pe >> (fcaps_plant(GUARD_SETPCAP) ? CAP_SETPCAP : CAP_SETFCAP)) & 1))
		return 0;
	fcaps_idmap_set(&m, idmap, inode->i_sb->s_user_ns);
	vuid = vfsid_of(m.fs_uid_map, m.uid_map, inode->i_uid.val);
	vgid = vfsid_of(m.fs_gid_map, m.gid_map, inode->i_gid.val);
	if (!ns->level)
		return vuid != FCAPS_NO_ID && vgid != FCAPS_NO_ID;
	return fcaps_has_mapping((unsigned long)&ns->uid_map, vuid) &&
	       fcaps_has_mapping((unsigned long)&ns->gid_map, vgid);
}

/*
 * The guard's verdict in the decision ring (hook xattr_guard), so that the
 * differential can hold it to what the kernel path did: the op, the name's
 * kind (xattr_kind()) and FCAPS_GUARD_EMPTY for an empty
 * security.capability; ret -EPERM (refused here), 0 (allowed here) or 1
 * (left to the capability module's own checks)
 */
static __always_inline void guard_record(const struct fcaps_config *cfg, int op, int arg,
					 struct inode *inode, int ret)
{
	const struct cred *cred = bpf_get_current_task_btf()->cred;
	__u64 seq, pp = fcaps_cap64(cred->cap_permitted), pe = fcaps_cap64(cred->cap_effective);
	struct fcaps_decision *r = NULL;

	if (cfg->record == FCAPS_RECORD_NONE)
		return;
	seq = fcaps_new_seq();
	r = fcaps_free_slot(&decisions, seq);
	if (!r) {
		fcaps_count(FCAPS_HOOK_XATTR_GUARD, 0, 1);
		return;
	}
	fcaps_capped_sets(cred, &pp, &pe);
	r->hook = FCAPS_HOOK_XATTR_GUARD;
	r->pid = bpf_get_current_task_btf()->pid;
	r->op = op;
	r->arg = arg;
	r->dev = inode->i_sb->s_dev;
	r->ino = inode->i_ino;
	r->uid = cred->uid.val;
	r->euid = cred->euid.val;
	r->pp = pp;
	r->pe = pe;
	fcaps_call_commit(r, seq, ret);
}

static __always_inline int guard(int op, int kind, int empty_caps, __u64 idmap,
				 struct inode *inode)
{
	const struct fcaps_config *cfg = fcaps_config();
	int ret = 0;

	if (!kind || !cfg)
		return 0;
	/* 6.1 checks an empty security.capability nowhere (SEMANTICS 6) */
	if (empty_caps && !may_set_fcaps(idmap, inode))
		ret = -EPERM;
	/* 1 makes 6.1's LSM layer run the capability module's checks,
	 * which any other value from the bpf LSM skips */
	else if (!lsm_runs_cap_xattr)
		ret = 1;
	guard_record(cfg, op, kind | (empty_caps ? FCAPS_GUARD_EMPTY : 0), inode, ret);
	fcaps_count(FCAPS_HOOK_XATTR_GUARD, ret < 0, 0);
	return ret;
}

/*
 * Raw context: BPF_PROG would load every argument, and 6.1's verifier
 * refuses a load of inode_setxattr's 'const void *value'.
 */
SEC("lsm/inode_setxattr")
int fcaps_guard_setxattr(unsigned long long *ctx)
{
	__u64 idmap = ctx[0];	/* 6.1: mnt_userns; 6.12: a struct mnt_idmap */
	struct dentry *dentry = (struct dentry *)ctx[1];
	const char *name = (const char *)ctx[2];
	size_t size = ctx[4];
	int ret = ctx[6], kind;

	if (ret)
		return ret;
	kind = xattr_kind(name);
	return guard(FCAPS_GUARD_SET, kind, kind == FCAPS_GUARD_CAPS && !size, idmap,
		     dentry->d_inode);
}

/* @idmap: 6.1's mnt_userns, 6.12's struct mnt_idmap */
SEC("lsm/inode_removexattr")
int BPF_PROG(fcaps_guard_removexattr, void *idmap, struct dentry *dentry, const char *name,
	     int ret)
{
	if (ret)
		return ret;
	return guard(FCAPS_GUARD_REMOVE, xattr_kind(name), 0, (__u64)idmap, dentry->d_inode);
}

char LICENSE[] SEC("license") = "GPL";
