// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/xattr.h>
#include "capfile.h"

static const cap_flag_t flags[3] = { CAP_EFFECTIVE, CAP_PERMITTED, CAP_INHERITABLE };

static __u64 *set_of(struct fcaps_sets *sets, int i)
{
	return i == 0 ? &sets->effective : i == 1 ? &sets->permitted : &sets->inheritable;
}

int fcaps_sets_from_text(const char *text, struct fcaps_sets *sets,
			 char *err, size_t errlen)
{
	const char *t = text;
	cap_flag_value_t v;
	cap_t caps;

	while (isspace((unsigned char)*t))
		t++;
	/* a legacy value with empty sets takes every capability from root:
	 * never by a forgotten argument */
	if (!*t) {
		snprintf(err, errlen, "empty capability text: name the capabilities "
			 "(e.g. 'cap_net_raw+ep'), or '=' for empty sets on purpose");
		return -1;
	}
	caps = cap_from_text(text);
	if (!caps) {
		snprintf(err, errlen, "'%s' is not capability text "
			 "(e.g. 'cap_net_raw,cap_kill+ep cap_chown+i')", text);
		return -1;
	}
	memset(sets, 0, sizeof(*sets));
	for (int i = 0; i < 3; i++) {
		for (cap_value_t c = 0; c < 64; c++) {
			if (cap_get_flag(caps, c, flags[i], &v) || v != CAP_SET)
				continue;
			if (c > FCAPS_LAST_CAP) {
				snprintf(err, errlen, "'%s' names capability %d, above "
					 "CAP_LAST_CAP (%d)", text, c, FCAPS_LAST_CAP);
				cap_free(caps);
				return -1;
			}
			*set_of(sets, i) |= 1ULL << c;
		}
	}
	cap_free(caps);
	return 0;
}

char *fcaps_sets_to_text(const struct fcaps_sets *sets)
{
	cap_t caps = cap_init();
	char *text, *out;

	if (!caps)
		return NULL;
	for (int i = 0; i < 3; i++)
		for (cap_value_t c = 0; c <= FCAPS_LAST_CAP; c++)
			if (*set_of((struct fcaps_sets *)sets, i) & (1ULL << c))
				cap_set_flag(caps, flags[i], 1, &c, CAP_SET);
	text = cap_to_text(caps, NULL);
	cap_free(caps);
	if (!text)
		return NULL;
	out = strdup(text);
	cap_free(text);
	return out;
}

int fcaps_write_file(const char *path, const struct fcaps_sets *sets, __u32 tag)
{
	__u8 buf[FCAPS_MAX_SIZE];
	__u32 len;

	if (!tag)
		tag = ((sets->effective | sets->permitted | sets->inheritable) >> 32) ?
		      FCAPS_V3_TAG : FCAPS_V1_TAG;
	len = fcaps_encode(sets, tag, buf);
	return setxattr(path, FCAPS_XATTR_NAME, buf, len, 0) ? -errno : 0;
}

/* getxattr() of @path, or fgetxattr() of @fd when @path is NULL */
static ssize_t get_value(const char *path, int fd, void *value, size_t size)
{
	return path ? getxattr(path, FCAPS_XATTR_NAME, value, size) :
		      fgetxattr(fd, FCAPS_XATTR_NAME, value, size);
}

/* One call for a file without a value or with one of a legacy or 6.1 size */
static int read_value(const char *path, int fd, __u8 *buf, __u32 *len)
{
	__u8 small[256], *value = small;
	ssize_t n = get_value(path, fd, small, sizeof(small));
	int err;

	if (n < 0 && errno == ERANGE) {
		/* larger: ask its size, then read it whole (it may change between) */
		n = get_value(path, fd, NULL, 0);
		if (n >= 0) {
			value = malloc(n + 1);
			if (!value)
				return -ENOMEM;
			n = get_value(path, fd, value, n + 1);
		}
	}
	err = n < 0 ? -errno : 0;
	if (!err) {
		*len = n;
		memset(buf, 0, FCAPS_MAX_SIZE);
		memcpy(buf, value, (size_t)n < FCAPS_MAX_SIZE ? (size_t)n : FCAPS_MAX_SIZE);
	}
	if (value != small)
		free(value);
	return err;
}

int fcaps_read_file(const char *path, __u8 *buf, __u32 *len)
{
	return read_value(path, -1, buf, len);
}

int fcaps_read_fd(int fd, __u8 *buf, __u32 *len)
{
	return read_value(NULL, fd, buf, len);
}
