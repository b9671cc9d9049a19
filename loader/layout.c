// SPDX-License-Identifier: GPL-2.0
/*
 * A map's records as text, from its BTF: every member's name, bit offset
 * and type down to the integers, enumerators with their values. Two builds
 * whose keys or values differ in any name, place or width give two texts,
 * so that a pinned map can be checked against the records this fcapsctl
 * reads and writes (bpfctl.c, map_fd()). Type names are left out: a rename
 * moves nothing.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include "layout.h"

#define MAX_DEPTH 16	/* records nest a few levels; pointers are not followed */

static void describe(FILE *out, const struct btf *btf, __u32 id, int depth)
{
	const struct btf_type *t = id ? btf__type_by_id(btf, id) : NULL;
	__u16 i, n;

	if (!t || depth > MAX_DEPTH) {
		fputs(id ? "?" : "void", out);
		return;
	}
	n = btf_vlen(t);
	switch (btf_kind(t)) {
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
	case BTF_KIND_VAR:
		describe(out, btf, t->type, depth + 1);
		break;
	case BTF_KIND_INT:
		fprintf(out, "%c%u", btf_int_encoding(t) & BTF_INT_SIGNED ? 's' : 'u',
			btf_int_bits(t));
		break;
	case BTF_KIND_PTR:
		fputc('*', out);
		break;
	case BTF_KIND_ARRAY:
		fprintf(out, "[%u]", btf_array(t)->nelems);
		describe(out, btf, btf_array(t)->type, depth + 1);
		break;
	case BTF_KIND_ENUM:
		fprintf(out, "e%u{", t->size);
		for (i = 0; i < n; i++)
			fprintf(out, "%s=%d;", btf__name_by_offset(btf, btf_enum(t)[i].name_off),
				btf_enum(t)[i].val);
		fputc('}', out);
		break;
	case BTF_KIND_ENUM64:
		fprintf(out, "e%u{", t->size);
		for (i = 0; i < n; i++)
			fprintf(out, "%s=%llu;",
				btf__name_by_offset(btf, btf_enum64(t)[i].name_off),
				(unsigned long long)btf_enum64_value(&btf_enum64(t)[i]));
		fputc('}', out);
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		fprintf(out, "%c%u{", btf_is_union(t) ? 'u' : 's', t->size);
		for (i = 0; i < n; i++) {
			fprintf(out, "%s@%u", btf__name_by_offset(btf, btf_members(t)[i].name_off),
				btf_member_bit_offset(t, i));
			if (btf_member_bitfield_size(t, i))
				fprintf(out, ":%u", btf_member_bitfield_size(t, i));
			fputc('=', out);
			describe(out, btf, btf_members(t)[i].type, depth + 1);
			fputc(';', out);
		}
		fputc('}', out);
		break;
	case BTF_KIND_DATASEC:	/* a global's section: libbpf maps it whole */
		fprintf(out, "d%u{", t->size);
		for (i = 0; i < n; i++) {
			const struct btf_var_secinfo *v = &btf_var_secinfos(t)[i];
			const struct btf_type *var = btf__type_by_id(btf, v->type);

			fprintf(out, "%s@%u=", var ? btf__name_by_offset(btf, var->name_off) : "?",
				v->offset);
			describe(out, btf, v->type, depth + 1);
			fputc(';', out);
		}
		fputc('}', out);
		break;
	default:
		fprintf(out, "k%u", btf_kind(t));
	}
}

/* The text of a map's key and value; NULL when out of memory */
char *fcaps_layout(const struct btf *btf, __u32 key_type, __u32 key_size,
		   __u32 value_type, __u32 value_size)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	if (!out)
		return NULL;
	fprintf(out, "key %u ", key_size);
	if (btf && key_type)
		describe(out, btf, key_type, 0);
	fprintf(out, " value %u ", value_size);
	if (btf && value_type)
		describe(out, btf, value_type, 0);
	if (fclose(out)) {
		free(text);
		return NULL;
	}
	return text;
}
