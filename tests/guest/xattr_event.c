// SPDX-License-Identifier: GPL-2.0
/* A security.* write or removal as an event (xattr_event.h) */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>
#include "fcaps_values.h"
#include "xattr_event.h"

/* the probe's status line alone, without a libc (fcaps_status.c) */
#define STATUS_PROG "/usr/local/bin/fcaps_status"

static int fresh_copy(const char *to, uid_t owner)
{
	int in = open(STATUS_PROG, O_RDONLY | O_CLOEXEC), out;
	struct stat st;
	ssize_t n = -1;

	unlink(to);
	out = open(to, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0755);
	if (in >= 0 && out >= 0 && !fstat(in, &st))
		n = sendfile(out, in, NULL, st.st_size);
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return n < 0 || chown(to, owner, owner) || chmod(to, 0755) ? -1 : 0;
}

static void hex_of(const struct fcaps_test_value *v, char *buf, size_t len)
{
	size_t n = 0;

	for (__u32 i = 0; i < v->len && n + 3 < len; i++)
		n += snprintf(buf + n, len - n, "%02x", v->bytes[i]);
	buf[n] = 0;
}

int run_xattr_spec(const struct xattr_spec *x, struct xattr_out *o)
{
	const struct fcaps_test_value *before = x->before ? fcaps_test_value(x->before) : NULL;
	const struct fcaps_test_value *value = x->value ? fcaps_test_value(x->value) : NULL;
	char hex[80] = "", *argv[24], *then[] = { XATTR_FILE, "status", NULL };
	struct creds root = { 0 };
	int n = 0, fd;

	memset(o, 0, sizeof(*o));
	o->ret = -2;
	if ((x->before && !before) || (x->value && !value) || fresh_copy(XATTR_FILE, x->owner) ||
	    (before && setxattr(XATTR_FILE, "security.capability", before->bytes, before->len, 0))) {
		fprintf(stderr, "xattr event: cannot set up " XATTR_FILE " (before %s): %s\n",
			x->before ? x->before : "none", strerror(errno));
		return -1;
	}
	if (value)
		hex_of(value, hex, sizeof(hex));
	while (x->chain && x->chain[n] && n < 16)
		argv[n] = (char *)x->chain[n], n++;
	if (!n)
		argv[n++] = PROBE;
	argv[n++] = "--status";		/* its sets as it writes */
	argv[n++] = "xattr";
	argv[n++] = (char *)x->op;
	argv[n++] = XATTR_FILE;
	if (value)
		argv[n++] = hex;
	argv[n] = NULL;
	o->actor = spawn(&x->c, argv, &fd);
	snprintf(o->actor_out, sizeof(o->actor_out), "%s", read_output(fd, 1));
	close(fd);
	waitpid(o->actor, NULL, 0);
	if (has_field(o->actor_out, "xattr")) {
		o->ret = field(o->actor_out, "xattr") == 0 ? 0 : -1;
		o->err = o->ret ? (int)field(o->actor_out, "errno") : 0;
	}
	o->then = spawn(&root, then, &fd);
	snprintf(o->then_out, sizeof(o->then_out), "%s", read_output(fd, 1));
	close(fd);
	waitpid(o->then, NULL, 0);
	return 0;
}
