// SPDX-License-Identifier: GPL-2.0
/* What the running kernel has, from its BTF (kfeatures.h). */
#include <string.h>
#include <bpf/btf.h>
#include "kfeatures.h"

/* How many parameters function @name has in @btf; -1 if it is not there */
static int func_params(const struct btf *btf, const char *name)
{
	int id = btf__find_by_name_kind(btf, name, BTF_KIND_FUNC);
	const struct btf_type *t;

	if (id < 0)
		return -1;
	t = btf__type_by_id(btf, btf__type_by_id(btf, id)->type);
	return t ? btf_vlen(t) : -1;
}

void kernel_features(struct kernel_features *f)
{
	struct btf *btf = btf__load_vmlinux_btf();

	memset(f, 0, sizeof(*f));
	if (!btf)
		return;
	f->tracepoints = btf__find_by_name_kind(btf, "btf_trace_fcaps_sched",
						BTF_KIND_TYPEDEF) >= 0;
	f->skipcap = func_params(btf, "bpf_lsm_inode_xattr_skipcap") >= 0;
	f->setattr_idmap = func_params(btf, "bpf_lsm_inode_setattr") == 3;
	btf__free(btf);
}
