/* SPDX-License-Identifier: GPL-2.0 */
#ifndef FCAPS_LAYOUT_H
#define FCAPS_LAYOUT_H

#include <linux/types.h>
#include <bpf/btf.h>

char *fcaps_layout(const struct btf *btf, __u32 key_type, __u32 key_size,
		   __u32 value_type, __u32 value_size);

#endif
