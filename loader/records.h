/* SPDX-License-Identifier: GPL-2.0 */
/* Map values printed from their kernel BTF type; JSON through json-c. */
#ifndef FCAPS_RECORDS_H
#define FCAPS_RECORDS_H

#include <json-c/json.h>
#include <linux/types.h>

struct btf;
struct btf_dump;

/* An integer member of the value type, as JSON prints it */
struct record_field {
	const char *name;	/* in the BTF */
	__u32 offset;
	__u8 size;
	__u8 is_signed;
};

struct records {
	struct btf *btf;
	struct btf_dump *dump;
	__u32 type_id;
	__u32 size;
	struct record_field *fields;	/* every integer member, in order */
	int nfields;
};

/* Maps a member's value to a name where one reads better (the hook) */
typedef const char *(*record_names_fn)(const char *member, __u64 v);

/* The value type of the map @map_fd; 0 or -errno. */
int records_open(int map_fd, struct records *r);
void records_close(struct records *r);
void records_print_text(struct records *r, const void *rec);
void records_add_json(const struct records *r, const void *rec, record_names_fn names_of,
		      json_object *o);
/* {"map":@map, then every integer member} on one line, without json-c */
void records_print_json(const struct records *r, const void *rec, const char *map,
			record_names_fn names_of);

#endif
