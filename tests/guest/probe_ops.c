// SPDX-License-Identifier: GPL-2.0
/*
 * fcaps_probe's steps and decisions beyond signals and scheduling: what a
 * chain of events does between execs (setuid, tracing) and the decisions
 * fcaps makes outside exec and kill (security.* writes, ptrace). Each
 * reports as key=value words, as the rest of fcaps_probe.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>
#include "probe_ops.h"

/* what=0, or what=-1 errno=N */
void probe_report(const char *what, int rc)
{
	if (rc == 0)
		printf("%s=0\n", what);
	else
		printf("%s=-1 errno=%d\n", what, errno);
	fflush(stdout);
}

void probe_setuid(uid_t uid)
{
	probe_report("setuid", setresgid(uid, uid, uid) || setresuid(uid, uid, uid) ? -1 : 0);
}

static int unhex(const char *hex, unsigned char *out, size_t max, size_t *len)
{
	size_t n = strlen(hex);

	if (!strncmp(hex, "0x", 2))
		hex += 2, n -= 2;
	if (n % 2 || n / 2 > max)
		return -1;
	for (*len = 0; *len < n / 2; (*len)++) {
		unsigned int b;

		if (sscanf(hex + 2 * *len, "%2x", &b) != 1)
			return -1;
		out[*len] = b;
	}
	return 0;
}

int probe_xattr(const char *op, const char *file, const char *hex)
{
	static const char other[] = "security.fcaps_probe";
	unsigned char v[64];
	size_t len = 0;
	int rc;

	if (!strcmp(op, "set") && hex && !unhex(hex, v, sizeof(v), &len))
		rc = setxattr(file, "security.capability", v, len, 0);
	else if (!strcmp(op, "empty"))
		rc = setxattr(file, "security.capability", "", 0, 0);
	else if (!strcmp(op, "remove"))
		rc = removexattr(file, "security.capability");
	else if (!strcmp(op, "set-other"))
		rc = setxattr(file, other, "x", 1, 0);
	else if (!strcmp(op, "remove-other"))
		rc = removexattr(file, other);
	else
		return 2;
	probe_report("xattr", rc);
	return 0;
}

/* PTRACE_SEIZE of @pid, and PTRACE_DETACH at once: the access check alone */
void probe_ptrace(pid_t pid)
{
	int rc = (int)ptrace(PTRACE_SEIZE, pid, NULL, NULL);

	if (!rc)
		ptrace(PTRACE_DETACH, pid, NULL, NULL);
	probe_report("ptrace", rc);
}

void probe_traceme_self(void)
{
	probe_report("traceme", (int)ptrace(PTRACE_TRACEME, 0, NULL, NULL));
}

/* A child of ours (traced=PID) execs @file traceme-self: its
 * PTRACE_TRACEME asks about us */
int probe_traceme(const char *file)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return 1;
	if (pid == 0) {
		execl(file, file, "traceme-self", (char *)NULL);
		printf("exec_errno=%d\n", errno);
		_exit(1);
	}
	printf("traced=%d\n", pid);
	fflush(stdout);
	while (waitpid(pid, &status, __WALL) == pid && !WIFEXITED(status) && !WIFSIGNALED(status))
		ptrace(PTRACE_CONT, pid, NULL, NULL);	/* it stopped as our tracee */
	return 0;
}

/*
 * Run @argv (a program and its words) in a child we trace from before its
 * exec: its exec is unsafe (LSM_UNSAFE_PTRACE), and whether it keeps what
 * its file gives depends on our CAP_SYS_PTRACE: traced=PID, then trace=0
 * once attached.
 */
int probe_trace(char **argv)
{
	pid_t pid;
	int status;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		raise(SIGSTOP);		/* until we are attached */
		execv(argv[0], argv);
		printf("exec_errno=%d\n", errno);
		_exit(1);
	}
	if (waitpid(pid, &status, WUNTRACED) != pid || !WIFSTOPPED(status))
		return 1;
	printf("traced=%d\n", pid);
	probe_report("trace", (int)ptrace(PTRACE_SEIZE, pid, NULL, (void *)PTRACE_O_EXITKILL));
	kill(pid, SIGCONT);
	while (waitpid(pid, &status, __WALL) == pid && !WIFEXITED(status) &&
	       !WIFSIGNALED(status)) {
		int sig = WSTOPSIG(status);

		/* the exec's SIGTRAP, and stops, are ours; the rest is its own */
		if (status >> 16 || sig == SIGTRAP || sig == SIGSTOP || sig == SIGCONT)
			sig = 0;
		ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig);
	}
	return 0;
}
