// SPDX-License-Identifier: GPL-2.0
/*
 * fcaps_audit PROG ARG...: the file capabilities audit records for one exec.
 * Becomes the audit daemon (AUDIT_SET: enabled, our pid), adds a rule that
 * records every execve at exit, runs PROG ARG... in a child with its
 * stdout on /dev/null, and prints the AUDIT_BPRM_FCAPS record of the
 * child's first exec that wrote one, from "fver=" on ("bprm_fcaps: none"
 * when none did within 2 s). The rule is deleted and audit switched off
 * again before it exits, so that no later exec is audited to the console
 * (killed midway, it leaves both: the next boot has neither). Exits 0, or
 * 3 with a message when a step around the exec failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/netlink.h>

#define SYS_EXECVE_X86_64 59

struct audit_request {
	struct nlmsghdr nlh;
	union {
		struct audit_status status;
		struct audit_rule_data rule;
	};
};

static int fail(const char *what)
{
	fprintf(stderr, "fcaps_audit: %s: %s\n", what, strerror(errno));
	return 3;
}

/* send one request and wait for its acknowledgement */
static int request(int fd, int type, const void *body, size_t len)
{
	static __u32 seq;
	struct audit_request req = {};
	char buf[8192];
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };

	req.nlh.nlmsg_len = NLMSG_LENGTH(len);
	req.nlh.nlmsg_type = type;
	req.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	req.nlh.nlmsg_seq = ++seq;
	memcpy(NLMSG_DATA(&req.nlh), body, len);
	if (sendto(fd, &req, req.nlh.nlmsg_len, 0, (struct sockaddr *)&kernel,
		   sizeof(kernel)) < 0)
		return -1;
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);

		if (n < 0)
			return -1;
		for (; NLMSG_OK(nlh, n); nlh = NLMSG_NEXT(nlh, n)) {
			struct nlmsgerr *err = NLMSG_DATA(nlh);

			if (nlh->nlmsg_type != NLMSG_ERROR || nlh->nlmsg_seq != seq)
				continue;
			errno = -err->error;
			return err->error ? -1 : 0;
		}
		nlh = (struct nlmsghdr *)buf;
	}
}

static int set_daemon(int fd, int on)
{
	struct audit_status s = {
		.mask = AUDIT_STATUS_ENABLED | AUDIT_STATUS_PID,
		.enabled = on,
		.pid = on ? getpid() : 0,
	};

	return request(fd, AUDIT_SET, &s, sizeof(s));
}

static int exec_rule(int fd, int type)
{
	struct audit_rule_data r = {
		.flags = AUDIT_FILTER_EXIT,
		.action = AUDIT_ALWAYS,
	};

	r.mask[SYS_EXECVE_X86_64 / 32] = 1U << (SYS_EXECVE_X86_64 % 32);
	return request(fd, type, &r, sizeof(r));
}

/*
 * Records of the child's exec: its AUDIT_SYSCALL names its pid, and the
 * records of one event share the "audit(TIME:SERIAL)" that starts them.
 */
static void print_fcaps(int fd, pid_t child)
{
	char buf[16384], text[1024], serial[64] = "", pid[32];
	struct pollfd p = { .fd = fd, .events = POLLIN };

	snprintf(pid, sizeof(pid), " pid=%d ", child);
	while (poll(&p, 1, 2000) == 1) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *nlh = (struct nlmsghdr *)buf;

		if (n <= 0)
			break;
		for (; NLMSG_OK(nlh, n); nlh = NLMSG_NEXT(nlh, n)) {
			char *end;

			/* a copy: a terminator written in place would land on
			 * the next message's header */
			snprintf(text, sizeof(text), "%.*s", (int)(nlh->nlmsg_len - NLMSG_HDRLEN),
				 (char *)NLMSG_DATA(nlh));
			end = strchr(text, ')');
			if (!end)
				continue;
			if (nlh->nlmsg_type == AUDIT_SYSCALL && strstr(text, pid))
				snprintf(serial, sizeof(serial), "%.*s", (int)(end - text), text);
			if (!*serial || strncmp(text, serial, strlen(serial)))
				continue;
			if (nlh->nlmsg_type == AUDIT_BPRM_FCAPS) {
				printf("bprm_fcaps: %s\n", strstr(text, "fver=") ?: text);
				return;
			}
			if (nlh->nlmsg_type == AUDIT_EOE)
				*serial = '\0';	/* an exec before PROG's own (runas) */
		}
	}
	printf("bprm_fcaps: none\n");
}

int main(int argc, char **argv)
{
	int fd, status, rc = 0;
	pid_t child;

	if (argc < 2) {
		fprintf(stderr, "usage: fcaps_audit PROG ARG...\n");
		return 2;
	}
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	if (fd < 0)
		return fail("socket(NETLINK_AUDIT)");
	if (set_daemon(fd, 1))
		return fail("AUDIT_SET (enable, our pid)");
	if (exec_rule(fd, AUDIT_ADD_RULE)) {
		rc = fail("AUDIT_ADD_RULE");
		goto off;
	}
	child = fork();
	if (child == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		execv(argv[1], argv + 1);
		_exit(127);
	}
	if (child < 0 || waitpid(child, &status, 0) != child) {
		rc = fail("the child");
	} else {
		print_fcaps(fd, child);
		fflush(stdout);
	}
	if (exec_rule(fd, AUDIT_DEL_RULE))
		rc = fail("AUDIT_DEL_RULE");
off:
	if (set_daemon(fd, 0))
		rc = fail("AUDIT_SET (disable)");
	return rc;
}
