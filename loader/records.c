// SPDX-License-Identifier: GPL-2.0
/*
 * Decision records printed from the BTF type the kernel holds for the map's
 * values, so that the printer cannot drift from struct fcaps_decision: text
 * through libbpf's btf_dump, JSON by walking the struct's members.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "records.h"

static void print_to_stdout(void *ctx, const char *fmt, va_list args)
{
	(void)ctx;
	vprintf(fmt, args);
}

int records_open(int map_fd, struct records *r)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	memset(r, 0, sizeof(*r));
	if (bpf_obj_get_info_by_fd(map_fd, &info, &len))
		return -errno;
	if (!info.btf_id || !info.btf_value_type_id)
		return -ENOENT;		/* a map without BTF: not ours */
	r->btf = btf__load_from_kernel_by_id(info.btf_id);
	if (!r->btf)
		return -errno;
	r->type_id = info.btf_value_type_id;
	r->size = info.value_size;
	r->dump = btf_dump__new(r->btf, print_to_stdout, NULL, NULL);
	if (!r->dump) {
		int err = -errno;

		btf__free(r->btf);
		return err;
	}
	return 0;
}

void records_close(struct records *r)
{
	btf_dump__free(r->dump);
	btf__free(r->btf);
	memset(r, 0, sizeof(*r));
}

void records_print_text(struct records *r, const void *rec)
{
	LIBBPF_OPTS(btf_dump_type_data_opts, opts, .compact = true);

	btf_dump__dump_type_data(r->dump, r->type_id, rec, r->size, &opts);
	printf("\n");
}

/* Every integer member into @o, in declaration order; @names_of maps a
 * member's value to a name where one reads better (the hook). */
void records_add_json(struct records *r, const void *rec,
		      const char *(*names_of)(const char *member, __u64 v),
		      json_object *o)
{
	const struct btf_type *t = btf__type_by_id(r->btf, r->type_id);
	const struct btf_member *m = btf_members(t);

	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *name = btf__name_by_offset(r->btf, m->name_off);
		const struct btf_type *mt = btf__type_by_id(r->btf,
					btf__resolve_type(r->btf, m->type));
		const __u8 *p = (const __u8 *)rec + btf_member_bit_offset(t, i) / 8;
		const char *text;
		__u64 v = 0;

		if (!btf_is_int(mt) || btf_member_bitfield_size(t, i) || mt->size > 8)
			continue;
		memcpy(&v, p, mt->size);
		text = names_of ? names_of(name, v) : NULL;
		if (text)
			json_object_object_add(o, name, json_object_new_string(text));
		else if (btf_int_encoding(mt) & BTF_INT_SIGNED)
			json_object_object_add(o, name, json_object_new_int64(
				mt->size == 4 ? (__s64)(__s32)v : (__s64)v));
		else
			json_object_object_add(o, name, json_object_new_uint64(v));
	}
}
