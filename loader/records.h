/* SPDX-License-Identifier: GPL-2.0 */
/* Map values printed from their kernel BTF type; JSON through json-c. */
#ifndef FCAPS_RECORDS_H
#define FCAPS_RECORDS_H

#include <json-c/json.h>
#include <linux/types.h>

struct btf;
struct btf_dump;

struct records {
	struct btf *btf;
	struct btf_dump *dump;
	__u32 type_id;
	__u32 size;
};

/* The value type of the map @map_fd; 0 or -errno. */
int records_open(int map_fd, struct records *r);
void records_close(struct records *r);
void records_print_text(struct records *r, const void *rec);
void records_add_json(struct records *r, const void *rec,
		      const char *(*names_of)(const char *member, __u64 v),
		      json_object *o);

#endif
