/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Files as the policy keys them: the inode whose security.capability the
 * kernel reads (an overlay's layer's), and the namespace its rootid is in.
 */
#ifndef FCAPS_INODE_BPF_H
#define FCAPS_INODE_BPF_H

#define OVERLAYFS_SUPER_MAGIC 0x794c7630

/* 6.5 and later: an overlay inode's lower layers are in its ovl_entry */
struct ovl_entry___stack {
	unsigned int __numlower;
	struct ovl_path __lowerstack[];
};

struct ovl_inode___stack {
	struct ovl_entry___stack *oe;
};

/* @oi's first lower layer's dentry, from either layout */
static __always_inline struct dentry *fcaps_ovl_lower(struct ovl_inode *oi)
{
	struct ovl_entry___stack *oe;
	struct ovl_path *lower;

	if (bpf_core_field_exists(struct ovl_inode, lowerpath))
		return BPF_CORE_READ(oi, lowerpath.dentry);
	oe = BPF_CORE_READ((struct ovl_inode___stack *)oi, oe);
	if (!oe || !BPF_CORE_READ(oe, __numlower))
		return NULL;
	lower = (void *)oe + bpf_core_field_offset(struct ovl_entry___stack, __lowerstack);
	return BPF_CORE_READ(lower, dentry);
}

/*
 * The inode whose security.capability the kernel reads for @inode: an
 * overlay's inode reads its upper (else lower) layer's, and every write or
 * removal through it reaches the layer as well. Probed reads: a number.
 */
static __always_inline unsigned long fcaps_value_inode(struct inode *inode)
{
	struct inode *in = inode;
	unsigned long magic = BPF_CORE_READ(in, i_sb, s_magic);

	for (int i = 0; i < 3 && magic == OVERLAYFS_SUPER_MAGIC; i++) {	/* stacked */
		struct ovl_inode *oi = (void *)((unsigned long)in -
						bpf_core_field_offset(struct ovl_inode, vfs_inode));
		struct dentry *real = BPF_CORE_READ(oi, __upperdentry);
		struct inode *next;

		if (!real)
			real = fcaps_ovl_lower(oi);
		next = BPF_CORE_READ(real, d_inode);
		if (!next)
			break;
		in = next;
		magic = BPF_CORE_READ(in, i_sb, s_magic);
	}
	return (unsigned long)in;
}

/*
 * The policy key of @inode: the kernel's s_dev and inode number of the
 * inode whose value the kernel reads (fcaps_value_inode()). An overlay's
 * own numbers are no key (a directory's come from a counter, so they
 * collide with the layers').
 */
static __always_inline void fcaps_inode_key_probed(struct inode *inode, __u32 *dev, __u64 *ino)
{
	struct inode *in = (struct inode *)fcaps_value_inode(inode);

	*dev = BPF_CORE_READ(in, i_sb, s_dev);
	*ino = BPF_CORE_READ(in, i_ino);
}

/* The same from a BTF pointer: the usual case in plain loads */
static __always_inline void fcaps_inode_key(struct inode *inode, __u32 *dev, __u64 *ino)
{
	if (inode->i_sb->s_magic == OVERLAYFS_SUPER_MAGIC) {
		fcaps_inode_key_probed(inode, dev, ino);
		return;
	}
	*dev = inode->i_sb->s_dev;
	*ino = inode->i_ino;
}

/*
 * The user namespace a v3 value's rootid is relative to: that of the
 * filesystem the value is read from, an overlay's layer's (which the
 * overlay's own read converts there and back: a mount of it in a user
 * namespace changes nothing). A number, for fcaps_map_down_().
 */
static __always_inline unsigned long fcaps_value_ns(struct inode *inode)
{
	if (inode->i_sb->s_magic != OVERLAYFS_SUPER_MAGIC)
		return (unsigned long)inode->i_sb->s_user_ns;
	return (unsigned long)BPF_CORE_READ((struct inode *)fcaps_value_inode(inode),
					    i_sb, s_user_ns);
}

#endif /* FCAPS_INODE_BPF_H */
