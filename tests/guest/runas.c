// SPDX-License-Identifier: GPL-2.0
/* runas UID[:GID] CMD [ARG...]: exec CMD with real, effective and saved
 * uid/gid set and no supplementary groups. Root-only, for guest tests. */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long uid, gid;
	char *end;

	if (argc < 3) {
		fprintf(stderr, "usage: runas UID[:GID] CMD [ARG...]\n");
		return 2;
	}
	uid = strtoul(argv[1], &end, 10);
	gid = uid;
	if (*end == ':')
		gid = strtoul(end + 1, &end, 10);
	if (*end || end == argv[1]) {
		fprintf(stderr, "runas: bad UID[:GID] '%s'\n", argv[1]);
		return 2;
	}
	if (setgroups(0, NULL) || setresgid(gid, gid, gid) ||
	    setresuid(uid, uid, uid)) {
		fprintf(stderr, "runas: switching to %lu:%lu: %s\n", uid, gid,
			strerror(errno));
		return 126;
	}
	execvp(argv[2], argv + 2);
	fprintf(stderr, "runas: exec %s: %s\n", argv[2], strerror(errno));
	return 127;
}
