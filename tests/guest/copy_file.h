/* SPDX-License-Identifier: GPL-2.0 */
/* A file copied for a guest test: the catalogue's fixtures, fcaps_tamper */
#ifndef FCAPS_COPY_FILE_H
#define FCAPS_COPY_FILE_H

#include <fcntl.h>
#include <unistd.h>

/* @from to @to (created 0755, or truncated): 0, or -1 */
static inline int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out, ok = 1;
	ssize_t n;

	out = open(to, O_CREAT | O_WRONLY | O_TRUNC, 0755);
	if (in < 0 || out < 0)
		return -1;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		ok &= write(out, buf, n) == n;
	close(in);
	return close(out) == 0 && ok && n == 0 ? 0 : -1;
}

#endif
