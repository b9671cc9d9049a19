// SPDX-License-Identifier: GPL-2.0
/*
 * event_guard: each event of the workload runs in a process of its own
 * within a time limit, so that a rule that hangs one event (a target that
 * cannot be killed, a tracee never released) is reported on that event and
 * the run goes on. The workload is a child subreaper: whatever an event
 * leaves behind comes back to it and is killed when the event hangs.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "event_guard.h"

#define SLOW_AFTER 5		/* hangs before the limit shrinks */
#define SLOW_SECONDS 3

static pid_t spared[4];
static int nspared, hangs, seconds = 10;
static pid_t event_child;	/* nonzero in an event's own process */

void guard_init(void)
{
	const char *s = getenv("FCAPS_EVENT_SECONDS");
	sigset_t chld;

	if (s && atoi(s) > 0)
		seconds = atoi(s);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) {
		perror("workload: PR_SET_CHILD_SUBREAPER");
		exit(1);
	}
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
}

void guard_spare(pid_t pid)
{
	if (nspared < (int)(sizeof(spared) / sizeof(spared[0])))
		spared[nspared++] = pid;
}

static int is_spared(pid_t pid)
{
	for (int i = 0; i < nspared; i++)
		if (spared[i] == pid)
			return 1;
	return 0;
}

static pid_t parent_of(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	int ppid = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')))
		sscanf(p + 2, "%*c %d", &ppid);
	fclose(f);
	return ppid;
}

/* SIGKILL every descendant of ours but the spared ones; 1 if any lives */
static int kill_descendants(void)
{
	pid_t self = getpid();
	struct dirent *e;
	int found = 0;
	DIR *d = opendir("/proc");

	while (d && (e = readdir(d))) {
		pid_t pid = atoi(e->d_name), p = pid;
		int depth = 0;

		if (pid <= 1 || pid == self || is_spared(pid))
			continue;
		while (p > 1 && p != self && !is_spared(p) && depth++ < 64)
			p = parent_of(p);
		if (p == self) {
			kill(pid, SIGKILL);
			found = 1;
		}
	}
	if (d)
		closedir(d);
	return found;
}

static void reap_any(void)
{
	while (waitpid(-1, NULL, WNOHANG | __WALL) > 0)
		;
}

/* Wait for @child within the limit, reaping whatever else comes back to
 * us on the way; 0 when it ended, -1 when it hung. */
static int wait_child(pid_t child)
{
	struct timespec end, now, left;
	sigset_t chld;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += hangs >= SLOW_AFTER ? SLOW_SECONDS : seconds;
	for (;;) {
		pid_t w = waitpid(-1, NULL, WNOHANG | __WALL);

		if (w == child || (w < 0 && errno == ECHILD))
			return 0;
		if (w > 0)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &now);
		left.tv_sec = end.tv_sec - now.tv_sec;
		left.tv_nsec = end.tv_nsec - now.tv_nsec;
		if (left.tv_nsec < 0) {
			left.tv_sec--;
			left.tv_nsec += 1000000000L;
		}
		if (left.tv_sec < 0)
			return -1;
		if (sigtimedwait(&chld, NULL, &left) < 0 && errno != EAGAIN && errno != EINTR)
			return -1;
	}
}

int guard_begin(const char *name, const char *kind)
{
	pid_t child;

	fflush(stdout);
	child = fork();
	if (child < 0) {
		perror("workload: fork for an event");
		exit(1);
	}
	if (child == 0) {
		sigset_t chld;

		/* the event's own waits need SIGCHLD as usual */
		sigemptyset(&chld);
		sigaddset(&chld, SIGCHLD);
		sigprocmask(SIG_UNBLOCK, &chld, NULL);
		prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
		event_child = getpid();
		return 1;
	}
	if (wait_child(child) == 0) {
		reap_any();
		return 0;
	}
	/* hung: the event's line, then everything it started killed */
	printf("{\"workload\":%d,\"runner\":%d,\"name\":\"", child, getpid());
	for (const char *c = name; *c; c++)
		printf(*c == '"' || *c == '\\' ? "\\%c" : "%c", *c);
	printf("\",\"kind\":\"%s\",\"hang\":%d,\"pids\":[%d]}\n", kind,
	       hangs >= SLOW_AFTER ? SLOW_SECONDS : seconds, getpid());
	fflush(stdout);
	hangs++;
	for (int i = 0; i < 20 && kill_descendants(); i++) {
		usleep(50000);
		reap_any();
	}
	return 0;
}

void guard_end(void)
{
	if (!event_child)
		return;
	fflush(stdout);
	_exit(0);
}
