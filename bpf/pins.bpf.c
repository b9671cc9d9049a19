// SPDX-License-Identifier: GPL-2.0
/*
 * SEMANTICS 7: the pin directory (FCAPS_PIN_DIR, its progs/ and links/,
 * by the inodes the loader recorded). Unlinking the pin of a link drops
 * its last reference, which detaches the program; nothing in it may be
 * removed, renamed, created or chmod'ed but by a caller that may change
 * enforcement (integrity.bpf.c).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "integrity.bpf.h"

/* Is @inode the pin directory or its progs/ or links/? */
static __always_inline int pin_dir(const struct fcaps_config *cfg, struct inode *inode)
{
	__u64 ino;

	if (!inode)
		return 0;
	ino = inode->i_ino;
	if (ino != cfg->pin_ino[0] && ino != cfg->pin_ino[1] && ino != cfg->pin_ino[2])
		return 0;
	return inode->i_sb->s_dev == cfg->pin_dev;
}

/* A change in or of the pin directory (@a, @b: the inodes it touches) */
static __always_inline int pin_change(struct inode *a, struct inode *b, __u32 op)
{
	struct fcaps_config *cfg = fcaps_config();

	if (!cfg || !(pin_dir(cfg, a) || pin_dir(cfg, b)) || may(current_cred(), CAP_SYS_ADMIN))
		return 0;
	return refuse(cfg, FCAPS_OP_PIN, op);
}

SEC("lsm/inode_unlink")
int BPF_PROG(fcaps_integrity_unlink, struct inode *dir, struct dentry *dentry, int ret)
{
	return ret ?: pin_change(dir, NULL, FCAPS_PIN_UNLINK);
}

SEC("lsm/inode_rmdir")
int BPF_PROG(fcaps_integrity_rmdir, struct inode *dir, struct dentry *dentry, int ret)
{
	return ret ?: pin_change(dir, dentry->d_inode, FCAPS_PIN_RMDIR);
}

SEC("lsm/inode_rename")
int BPF_PROG(fcaps_integrity_rename, struct inode *old_dir, struct dentry *old_dentry,
	     struct inode *new_dir, struct dentry *new_dentry, int ret)
{
	return ret ?: pin_change(old_dir, new_dir, FCAPS_PIN_RENAME) ?:
		      pin_change(old_dentry->d_inode, new_dentry->d_inode, FCAPS_PIN_RENAME);
}

SEC("lsm/inode_create")
int BPF_PROG(fcaps_integrity_create, struct inode *dir, struct dentry *dentry,
	     umode_t mode, int ret)
{
	return ret ?: pin_change(dir, NULL, FCAPS_PIN_CREATE);
}

SEC("lsm/inode_mkdir")
int BPF_PROG(fcaps_integrity_mkdir, struct inode *dir, struct dentry *dentry,
	     umode_t mode, int ret)
{
	return ret ?: pin_change(dir, NULL, FCAPS_PIN_MKDIR);
}

SEC("lsm/inode_symlink")
int BPF_PROG(fcaps_integrity_symlink, struct inode *dir, struct dentry *dentry,
	     const char *old_name, int ret)
{
	return ret ?: pin_change(dir, NULL, FCAPS_PIN_SYMLINK);
}

SEC("lsm/inode_link")
int BPF_PROG(fcaps_integrity_link, struct dentry *old_dentry, struct inode *dir,
	     struct dentry *new_dentry, int ret)
{
	return ret ?: pin_change(dir, NULL, FCAPS_PIN_LINK);
}

struct mnt_idmap;

/* inode_setattr() takes the mount's idmap first from 6.8 on: one program
 * for each prototype, the loader loads the one the kernel's BTF has */
SEC("lsm/inode_setattr")
int BPF_PROG(fcaps_integrity_setattr, struct dentry *dentry, struct iattr *attr, int ret)
{
	return ret ?: pin_change(dentry->d_inode, dentry->d_parent->d_inode,
				 FCAPS_PIN_SETATTR);
}

SEC("lsm/inode_setattr")
int BPF_PROG(fcaps_integrity_setattr_idmap, struct mnt_idmap *idmap, struct dentry *dentry,
	     struct iattr *attr, int ret)
{
	return ret ?: pin_change(dentry->d_inode, dentry->d_parent->d_inode,
				 FCAPS_PIN_SETATTR);
}

char LICENSE[] SEC("license") = "GPL";
