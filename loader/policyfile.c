// SPDX-License-Identifier: GPL-2.0
/* Policy files and policy text (policyfile.h). */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "capfile.h"
#include "filekey.h"
#include "policyfile.h"

#define FCAPS_HEX_MAX 64

int policy_append(struct policy *p, const struct policy_entry *e)
{
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

static const struct policy *sorting;

/* by key, then by position: the last of a run of equal keys is the newest */
static int by_key_then_index(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int c = memcmp(&sorting->v[i].key, &sorting->v[j].key, sizeof(struct fcaps_file_key));

	return c ? c : (i > j) - (i < j);
}

/* Keep one entry per file, the last one given (sort, not a quadratic scan:
 * policy files of 100,000 lines are imported). */
static int dedupe(struct policy *p)
{
	size_t *idx = malloc(p->n * sizeof(*idx) + 1), n = 0;
	char *keep = calloc(p->n + 1, 1);

	if (!idx || !keep) {
		free(idx);
		free(keep);
		return -1;
	}
	for (size_t i = 0; i < p->n; i++)
		idx[i] = i;
	sorting = p;
	qsort(idx, p->n, sizeof(*idx), by_key_then_index);
	for (size_t i = 0; i < p->n; i++)
		if (i + 1 == p->n || memcmp(&p->v[idx[i]].key, &p->v[idx[i + 1]].key,
					    sizeof(struct fcaps_file_key)))
			keep[idx[i]] = 1;
	for (size_t i = 0; i < p->n; i++)
		if (keep[i])
			p->v[n++] = p->v[i];
	p->n = n;
	free(idx);
	free(keep);
	return 0;
}

/*
 * Any value the attribute can hold, empty included (6.1's own formats get
 * 6.1's rules); values longer than FCAPS_MAX_SIZE keep their first bytes.
 */
static int parse_hex(const char *hex, struct fcaps_policy_value *v)
{
	size_t len = strcspn(hex, " \t");

	if (hex[len] || len % 2 || len / 2 > FCAPS_HEX_MAX)
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
		snprintf(err, errlen, "%s: %s", path, policy_key_error(rc));
		return -1;
	}
	snprintf(e.path, sizeof(e.path), "%s", path);
	while (isspace((unsigned char)*text))
		text++;
	if (!strncmp(text, "hex:", 4)) {
		if (parse_hex(text + 4, &e.value)) {
			snprintf(err, errlen, "'%s' is not hex:BYTES of 0 to %d bytes",
				 text, FCAPS_HEX_MAX);
			return -1;
		}
		return policy_append(p, &e);
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
	return policy_append(p, &e);
}

#define POLICY_LINE_MAX 4096

int policy_parse_file(const char *file, struct policy *p)
{
	struct policy tmp = {};
	char *line = NULL, err[512];
	size_t cap = 0;
	ssize_t len;
	int lineno = 0, bad = 0;
	FILE *f = fopen(file, "r");
	struct stat st;

	if (!f || fstat(fileno(f), &st)) {
		fprintf(stderr, "%s: %s\n", file, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		fprintf(stderr, "%s: not a regular file\n", file);
		fclose(f);
		return -1;
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		char *s = line, *path, *rest;

		lineno++;
		if (len > POLICY_LINE_MAX || memchr(line, 0, len)) {
			fprintf(stderr, "%s:%d: %s\n", file, lineno, len > POLICY_LINE_MAX ?
				"line longer than 4096 bytes" : "binary data (a NUL byte)");
			bad = 1;
			break;
		}
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
	if (ferror(f)) {
		fprintf(stderr, "%s: reading: %s\n", file, strerror(errno));
		bad = 1;
	}
	free(line);
	fclose(f);
	for (size_t i = 0; !bad && i < tmp.n; i++)
		bad = policy_append(p, &tmp.v[i]) != 0;
	policy_free(&tmp);
	if (bad)
		return -1;
	return dedupe(p);
}

int policy_hold(struct policy *p, int fd)
{
	int *held = realloc(p->held, (p->nheld + 1) * sizeof(*held));

	if (!held) {
		close(fd);
		return -1;
	}
	p->held = held;
	p->held[p->nheld++] = fd;
	return 0;
}

void policy_free(struct policy *p)
{
	for (size_t i = 0; i < p->nheld; i++)
		close(p->held[i]);
	free(p->held);
	free(p->v);
	memset(p, 0, sizeof(*p));
}
