// SPDX-License-Identifier: GPL-2.0
/*
 * ring_drain: the workload empties the decision rings between two events
 * (fcaps_workload --drain-every), by the same command diff.sh dumps them
 * with at the end, so that the host reads one dump per map whatever the
 * run's length.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "ring_drain.h"

static struct drain {
	char map[32];
	const char *dump, *pids;
	off_t seen;		/* the dump's length after the last drain */
} drains[2];
static int ndrains;

int drain_add(const char *spec)
{
	const char *a = strchr(spec, ':'), *b = a ? strchr(a + 1, ':') : NULL;
	struct drain *d = &drains[ndrains];
	struct stat st;

	if (ndrains == 2 || !a || !b || a == spec || b == a + 1 || !b[1] ||
	    (size_t)(a - spec) >= sizeof(d->map)) {
		fprintf(stderr, "workload: --drain MAP:DUMP:PIDS, at most twice, not \"%s\"\n",
			spec);
		return -1;
	}
	memcpy(d->map, spec, a - spec);
	d->map[a - spec] = '\0';
	d->dump = strndup(a + 1, b - a - 1);
	d->pids = b + 1;
	d->seen = stat(d->dump, &st) ? 0 : st.st_size;
	ndrains++;
	return 0;
}

int drain_wanted(void)
{
	return ndrains;
}

/* The lines @d's dump gained since its last drain */
static long new_lines(struct drain *d)
{
	char buf[1 << 16];
	long lines = 0;
	ssize_t n;
	int fd = open(d->dump, O_RDONLY);

	if (fd < 0 || lseek(fd, d->seen, SEEK_SET) < 0) {
		perror(d->dump);
		exit(1);
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		d->seen += n;
		for (ssize_t i = 0; i < n; i++)
			lines += buf[i] == '\n';
	}
	close(fd);
	return lines;
}

static void drain_one(struct drain *d, const char *ctl, const char *after)
{
	int status;
	FILE *f;
	pid_t pid = fork();

	if (pid < 0) {
		perror("workload: fork for a drain");
		exit(1);
	}
	if (pid == 0) {
		int fd = open(d->dump, O_WRONLY | O_APPEND | O_CREAT, 0644);

		if (fd < 0 || dup2(fd, 1) < 0) {
			perror(d->dump);
			_exit(127);
		}
		execlp(ctl, ctl, "decisions", "--json", "--clear", "--map", d->map, NULL);
		perror(ctl);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "workload: draining %s after %s failed (status %#x)\n",
			d->map, after, status);
		exit(1);
	}
	f = fopen(d->pids, "a");
	if (!f || fprintf(f, "%d %s %ld\n", pid, after, new_lines(d)) < 0 || fclose(f)) {
		perror(d->pids);
		exit(1);
	}
}

void drain_rings(const char *ctl, const char *after)
{
	fflush(stdout);
	for (int i = 0; i < ndrains; i++)
		drain_one(&drains[i], ctl, after);
}
