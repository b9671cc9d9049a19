// SPDX-License-Identifier: GPL-2.0
/* Loads smoke_lsm.bpf.c through its skeleton and checks that it counts and
 * denies exactly what it should. Ends with "N passed, N failed". */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "smoke_lsm.skel.h"

static int passed, failed;

static void check(int ok, const char *what)
{
	printf("%s: %s\n", ok ? "PASS" : "FAIL", what);
	ok ? passed++ : failed++;
}

static int run_true(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int main(void)
{
	struct smoke_lsm_bpf *skel;
	int status, err, i;
	pid_t child;

	skel = smoke_lsm_bpf__open();
	if (!skel) {
		fprintf(stderr, "smoke_lsm: opening skeleton: %s\n", strerror(errno));
		return 1;
	}
	skel->rodata->parent_tgid = getpid();
	err = smoke_lsm_bpf__load(skel);
	check(!err, "skeleton loads (verifier accepts both programs)");
	if (!err) {
		err = smoke_lsm_bpf__attach(skel);
		check(!err, "programs attach to bprm_check_security and task_kill");
	}
	if (err)
		goto out;

	for (i = 0; i < 3; i++)
		if (run_true() != 0)
			break;
	check(i == 3, "three execs of /bin/true succeed under the program");
	printf("  execs counted: %llu\n", (unsigned long long)skel->bss->execs);
	check(skel->bss->execs == 3, "exactly 3 bprm_check_security calls counted");

	child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	skel->bss->deny_sig = SIGUSR1;
	skel->bss->deny_target_tgid = child;
	errno = 0;
	check(kill(child, SIGUSR1) == -1 && errno == EPERM,
	      "marked signal SIGUSR1 to marked child is denied with EPERM");
	check(kill(child, 0) == 0, "unmarked signal 0 to the same child is allowed");
	skel->bss->deny_target_tgid = 0;
	check(kill(child, SIGUSR1) == 0, "SIGUSR1 allowed once the mark is cleared");
	check(waitpid(child, &status, 0) == child && WIFSIGNALED(status) &&
	      WTERMSIG(status) == SIGUSR1, "child died of the SIGUSR1 it was sent");
out:
	smoke_lsm_bpf__destroy(skel);
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
