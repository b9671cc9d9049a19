// SPDX-License-Identifier: GPL-2.0
/*
 * Decision records printed from the BTF type the kernel holds for the map's
 * values, so that the printer cannot drift from struct fcaps_decision: text
 * through libbpf's btf_dump, JSON from a table of the struct's integer
 * members made once (a dump is tens of thousands of records; json-c
 * objects for each cost the differential seconds).
 */
#define _GNU_SOURCE
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

/* The integer members of the value type, which JSON prints */
static int fields_of(struct records *r)
{
	const struct btf_type *t = btf__type_by_id(r->btf, btf__resolve_type(r->btf, r->type_id));
	const struct btf_member *m;

	if (!t || !btf_is_struct(t))
		return -EINVAL;
	r->fields = calloc(btf_vlen(t), sizeof(*r->fields));
	if (!r->fields)
		return -ENOMEM;
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const struct btf_type *mt = btf__type_by_id(r->btf,
					btf__resolve_type(r->btf, m->type));
		struct record_field *f = &r->fields[r->nfields];

		if (!mt || !btf_is_int(mt) || btf_member_bitfield_size(t, i) || mt->size > 8)
			continue;
		f->name = btf__name_by_offset(r->btf, m->name_off);
		f->offset = btf_member_bit_offset(t, i) / 8;
		f->size = mt->size;
		f->is_signed = !!(btf_int_encoding(mt) & BTF_INT_SIGNED);
		if (f->offset + f->size > r->size)
			return -EINVAL;
		r->nfields++;
	}
	return 0;
}

int records_open(int map_fd, struct records *r)
{
	int err;

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
	err = r->dump ? fields_of(r) : -errno;
	if (err)
		records_close(r);
	return err;
}

void records_close(struct records *r)
{
	free(r->fields);
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

/* A field's value, sign-extended where its type is signed */
static __u64 field_value(const struct record_field *f, const void *rec, int *negative)
{
	__u64 v = 0;

	memcpy(&v, (const __u8 *)rec + f->offset, f->size);
	if (f->is_signed && f->size < 8 && (v >> (f->size * 8 - 1) & 1))
		v |= ~0ULL << (f->size * 8);
	*negative = f->is_signed && (__s64)v < 0;
	return v;
}

/* Every integer member into @o, in declaration order */
void records_add_json(const struct records *r, const void *rec, record_names_fn names_of,
		      json_object *o)
{
	for (int i = 0; i < r->nfields; i++) {
		const struct record_field *f = &r->fields[i];
		int negative;
		__u64 v = field_value(f, rec, &negative);
		const char *text = names_of ? names_of(f->name, v) : NULL;

		if (text)
			json_object_object_add(o, f->name, json_object_new_string(text));
		else if (f->is_signed)
			json_object_object_add(o, f->name, json_object_new_int64((__s64)v));
		else
			json_object_object_add(o, f->name, json_object_new_uint64(v));
	}
}

/* json-c's short escape of @c, or 0 where it has none */
static char short_escape(char c)
{
	switch (c) {
	case '\b': return 'b';
	case '\f': return 'f';
	case '\n': return 'n';
	case '\r': return 'r';
	case '\t': return 't';
	case '"': return '"';
	case '\\': return '\\';
	default: return 0;
	}
}

/* A name as a JSON string: BTF and hook names, escaped as json-c escapes
 * them ('/' left alone: JSON_C_TO_STRING_NOSLASHESCAPE) */
static void put_string(const char *s)
{
	putchar_unlocked('"');
	for (; *s; s++) {
		char e = short_escape(*s);

		if (e) {
			putchar_unlocked('\\');
			putchar_unlocked(e);
		} else if ((unsigned char)*s < 0x20) {
			printf("\\u%04x", *s);
		} else {
			putchar_unlocked(*s);
		}
	}
	putchar_unlocked('"');
}

/* printf's %llu and %lld, at a fraction of its cost per field */
static void put_number(__u64 v, int negative)
{
	char digits[24], *d = digits + sizeof(digits);

	if (negative)
		v = -v;
	do
		*--d = '0' + v % 10;
	while (v /= 10);
	if (negative)
		*--d = '-';
	fwrite_unlocked(d, 1, digits + sizeof(digits) - d, stdout);
}

void records_print_json(const struct records *r, const void *rec, const char *map,
			record_names_fn names_of)
{
	fputs_unlocked("{\"map\":", stdout);
	put_string(map);
	for (int i = 0; i < r->nfields; i++) {
		const struct record_field *f = &r->fields[i];
		int negative;
		__u64 v = field_value(f, rec, &negative);
		const char *text = names_of ? names_of(f->name, v) : NULL;

		putchar_unlocked(',');
		put_string(f->name);
		putchar_unlocked(':');
		if (text)
			put_string(text);
		else
			put_number(v, negative);
	}
	fputs_unlocked("}\n", stdout);
}
