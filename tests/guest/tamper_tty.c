// SPDX-License-Identifier: GPL-2.0
/*
 * fcaps_tamper's ops that show what a capped root keeps on both paths
 * (SEMANTICS 7): a kernel helper it can replace and start, and the
 * terminal it shares with an uncapped root shell.
 *
 *   keyreq            request_key() with a callout: the kernel runs
 *                     /sbin/request-key with every capability
 *   sti TEXT          type TEXT and a newline into our terminal (TIOCSTI)
 *   pty-shell CMD     an uncapped /bin/sh reading lines from a new terminal,
 *                     its session's leader, given CMD as its first line;
 *                     waits up to 20 s (a debug kernel) for it to exit
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tamper_tty.h"

#define KEY_SPEC_PROCESS_KEYRING -2

static int keyreq(void)
{
	long id = syscall(SYS_request_key, "user", "fcaps-limitation", "callout",
			  KEY_SPEC_PROCESS_KEYRING);

	return tamper_result("keyreq", id < 0 ? errno : 0);
}

static int sti(const char *text)
{
	for (const char *c = text; ; c++) {
		char ch = *c ? *c : '\n';

		if (ioctl(0, TIOCSTI, &ch))
			return tamper_result("sti", errno);
		if (!*c)
			return tamper_result("sti", 0);
	}
}

static int pty_shell(const char *cmd)
{
	int master = posix_openpt(O_RDWR | O_NOCTTY), status;
	char buf[512];
	pid_t pid;

	if (master < 0 || grantpt(master) || unlockpt(master))
		return tamper_setup_failed("pty-shell", "posix_openpt");
	pid = fork();
	if (pid < 0)
		return tamper_setup_failed("pty-shell", "fork");
	if (pid == 0) {
		int slave;

		setsid();
		slave = open(ptsname(master), O_RDWR);	/* our controlling terminal */
		if (slave < 0)
			_exit(127);
		/* output elsewhere: a shell that reads lines, not busybox's
		 * line editor, which asks the terminal where its cursor is */
		dup2(slave, 0);
		dup2(open("/dev/null", O_WRONLY), 1);
		dup2(slave, 2);
		close(master);
		execl("/bin/sh", "sh", (char *)NULL);
		_exit(127);
	}
	if (write(master, cmd, strlen(cmd)) < 0 || write(master, "\n", 1) < 0)
		return tamper_setup_failed("pty-shell", "writing to the terminal");
	/* drain what the shell prints, so that it never blocks on output,
	 * until the terminal's other side is closed (EIO): then wait alone */
	for (int ms = 0; ms < 20000; ms += 50) {
		struct pollfd p = { master, POLLIN, 0 };

		if (waitpid(pid, &status, WNOHANG) == pid)
			return tamper_result("pty-shell", 0);
		if (poll(&p, master >= 0, 50) > 0 && read(master, buf, sizeof(buf)) <= 0) {
			close(master);
			master = -1;
		}
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return tamper_result("pty-shell", ETIMEDOUT);
}

int tamper_tty_op(const char *op, int argc, char **argv)
{
	if (!strcmp(op, "keyreq") && argc == 2)
		return keyreq();
	if (!strcmp(op, "sti") && argc == 3)
		return sti(argv[2]);
	if (!strcmp(op, "pty-shell") && argc == 3)
		return pty_shell(argv[2]);
	return -1;
}
