/* SPDX-License-Identifier: GPL-2.0 */
/* What the running kernel has, from its BTF: which programs a load takes. */
#ifndef FCAPS_KFEATURES_H
#define FCAPS_KFEATURES_H

struct kernel_features {
	int tracepoints;	/* the patched kernel's fcaps tracepoints */
	int skipcap;		/* inode_xattr_skipcap: the LSM layer runs cap's xattr checks */
	int setattr_idmap;	/* inode_setattr(idmap, dentry, attr): 6.8 on */
};

/* Fill @f from the kernel's BTF; all 0 where it cannot be read */
void kernel_features(struct kernel_features *f);

#endif
