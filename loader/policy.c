// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "capfile.h"
#include "policy.h"

#define FCAPS_HEX_MAX 64

__u32 kernel_dev(dev_t st_dev)
{
	return (major(st_dev) << 20) | minor(st_dev);
}

unsigned int kdev_major(__u32 kdev)
{
	return kdev >> 20;
}

unsigned int kdev_minor(__u32 kdev)
{
	return kdev & ((1U << 20) - 1);
}

int policy_key(const char *path, struct fcaps_file_key *key)
{
	struct stat st;

	if (stat(path, &st))
		return -errno;
	memset(key, 0, sizeof(*key));
	key->dev = kernel_dev(st.st_dev);
	key->ino = st.st_ino;
	return 0;
}

static int push(struct policy *p, const struct policy_entry *e)
{
	for (size_t i = 0; i < p->n; i++) {
		if (!memcmp(&p->v[i].key, &e->key, sizeof(e->key))) {
			p->v[i] = *e;	/* the last line for a file wins */
			return 0;
		}
	}
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;
		struct policy_entry *v = realloc(p->v, cap * sizeof(*v));

		if (!v)
			return -1;
		p->v = v;
		p->cap = cap;
	}
	p->v[p->n++] = *e;
	return 0;
}

/* Values longer than FCAPS_MAX_SIZE (malformed) keep their first bytes. */
static int parse_hex(const char *hex, struct fcaps_policy_value *v)
{
	size_t len = strlen(hex);

	if (len % 2 || len / 2 > FCAPS_HEX_MAX || len < 8)
		return -1;
	for (size_t i = 0; i < len / 2; i++) {
		unsigned int b;

		if (!isxdigit(hex[2 * i]) || !isxdigit(hex[2 * i + 1]) ||
		    sscanf(hex + 2 * i, "%2x", &b) != 1)
			return -1;
		if (i < FCAPS_MAX_SIZE)
			v->value[i] = b;
	}
	v->len = len / 2;
	return 0;
}

int policy_add_text(struct policy *p, const char *path, const char *text,
		    char *err, size_t errlen)
{
	struct policy_entry e = {};
	struct fcaps_sets sets;
	__u32 tag = 0;
	int rc;

	rc = policy_key(path, &e.key);
	if (rc) {
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		return -1;
	}
	snprintf(e.path, sizeof(e.path), "%s", path);
	while (isspace((unsigned char)*text))
		text++;
	if (!strncmp(text, "hex:", 4)) {
		if (parse_hex(text + 4, &e.value)) {
			snprintf(err, errlen, "'%s' is not hex:BYTES of 4 to %d bytes",
				 text, FCAPS_HEX_MAX);
			return -1;
		}
		tag = fcaps_le32(e.value.value);
		if (tag != FCAPS_V1_TAG && tag != FCAPS_V3_TAG) {
			snprintf(err, errlen, "'%s' does not start with a legacy tag", text);
			return -1;
		}
		return push(p, &e);
	}
	if (!strncmp(text, "v1 ", 3) || !strncmp(text, "v3 ", 3)) {
		tag = text[1] == '1' ? FCAPS_V1_TAG : FCAPS_V3_TAG;
		text += 3;
	}
	if (fcaps_sets_from_text(text, &sets, err, errlen))
		return -1;
	if (!tag)
		tag = ((sets.effective | sets.permitted | sets.inheritable) >> 32) ?
		      FCAPS_V3_TAG : FCAPS_V1_TAG;
	if (tag == FCAPS_V1_TAG && ((sets.effective | sets.permitted | sets.inheritable) >> 32)) {
		snprintf(err, errlen, "v1 names capabilities 0-31 only");
		return -1;
	}
	e.value.len = fcaps_encode(&sets, tag, e.value.value);
	return push(p, &e);
}

int policy_parse_file(const char *file, struct policy *p)
{
	struct policy tmp = {};
	char *line = NULL, err[512];
	size_t cap = 0;
	int lineno = 0, bad = 0;
	FILE *f = fopen(file, "r");

	if (!f) {
		fprintf(stderr, "%s: %s\n", file, strerror(errno));
		return -1;
	}
	while (getline(&line, &cap, f) > 0) {
		char *s = line, *path, *rest;

		lineno++;
		s[strcspn(s, "\n")] = 0;
		while (isspace((unsigned char)*s))
			s++;
		if (!*s || *s == '#')
			continue;
		path = s;
		rest = s + strcspn(s, " \t");
		if (!*rest) {
			fprintf(stderr, "%s:%d: want 'PATH CAPTEXT', got '%s'\n", file, lineno, s);
			bad = 1;
			continue;
		}
		*rest++ = 0;
		if (policy_add_text(&tmp, path, rest, err, sizeof(err))) {
			fprintf(stderr, "%s:%d: %s\n", file, lineno, err);
			bad = 1;
		}
	}
	free(line);
	fclose(f);
	if (bad) {
		policy_free(&tmp);
		return -1;
	}
	for (size_t i = 0; i < tmp.n; i++)
		if (push(p, &tmp.v[i])) {
			policy_free(&tmp);
			return -1;
		}
	policy_free(&tmp);
	return 0;
}

static struct policy *scan_into;
static int scan_failed;

static int scan_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	struct policy_entry e = {};
	__u8 buf[FCAPS_MAX_SIZE];
	__u32 len;
	int rc;

	(void)ftw;
	if (type != FTW_F || !S_ISREG(st->st_mode))
		return 0;
	rc = fcaps_read_file(path, buf, &len);
	if (rc == -ENODATA || rc == -ENOTSUP)
		return 0;
	if (rc) {
		fprintf(stderr, "scan: %s: reading security.capability: %s\n", path, strerror(-rc));
		scan_failed = 1;
		return 0;
	}
	if (len < 4 || (fcaps_le32(buf) != FCAPS_V1_TAG && fcaps_le32(buf) != FCAPS_V3_TAG))
		return 0;
	e.key.dev = kernel_dev(st->st_dev);
	e.key.ino = st->st_ino;
	e.value.len = len;
	memcpy(e.value.value, buf, sizeof(buf));
	snprintf(e.path, sizeof(e.path), "%s", path);
	return push(scan_into, &e) ? -1 : 0;
}

int policy_scan_dir(const char *dir, struct policy *p)
{
	scan_into = p;
	scan_failed = 0;
	if (nftw(dir, scan_one, 16, FTW_PHYS | FTW_MOUNT) || scan_failed) {
		fprintf(stderr, "scan: %s: %s\n", dir, scan_failed ? "unreadable values" : strerror(errno));
		return -1;
	}
	return 0;
}

void policy_free(struct policy *p)
{
	free(p->v);
	memset(p, 0, sizeof(*p));
}
