/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The probe's status line, from system calls alone, so that fcaps_probe
 * and fcaps_status (which has no libc) print it from one definition:
 *   pid ruid euid rgid egid suid fsuid sgid fsgid Inh Prm Eff Amb secure
 *   securebits (PR_GET_SECUREBITS)
 * as "key=value", the sets as %#llx prints them. /proc/self/status would
 * cost TCG about a millisecond an exec to generate and parse.
 */
#ifndef FCAPS_STATUS_LINE_H
#define FCAPS_STATUS_LINE_H

#include <linux/capability.h>
#include <sys/prctl.h>
#include <asm/unistd.h>

struct status_line {
	char buf[512];
	int n;
};

/* A system call of up to three arguments, the fourth and fifth 0 (prctl
 * refuses PR_CAP_AMBIENT with others) */
static inline long status_sys(long nr, long a, long b, long c)
{
	register long r10 __asm__("r10") = 0;
	register long r8 __asm__("r8") = 0;
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8)
			 : "rcx", "r11", "memory");
	return ret;
}

static inline void status_put(struct status_line *l, const char *s)
{
	while (*s && l->n < (int)sizeof(l->buf))
		l->buf[l->n++] = *s++;
}

/* " key=" and @v in decimal, or as %#llx: 0, else 0x and lower-case hex */
static inline void status_num(struct status_line *l, const char *key, unsigned long long v,
			      int hex)
{
	unsigned int base = hex ? 16 : 10;
	char d[24];
	int i = sizeof(d);

	d[--i] = 0;
	do {
		d[--i] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	status_put(l, key);
	if (hex && d[i] != '0')
		status_put(l, "0x");
	status_put(l, d + i);
}

static inline unsigned long long status_set(__u32 lo, __u32 hi)
{
	return lo | (unsigned long long)hi << 32;
}

/* The entry @type of the aux vector that follows the environment @envp as
 * the kernel laid it out, or 0 */
static inline unsigned long long status_auxv(char **envp, unsigned long long type)
{
	unsigned long long *av;

	while (*envp)
		envp++;
	for (av = (unsigned long long *)(envp + 1); av[0]; av += 2)
		if (av[0] == type)
			return av[1];
	return 0;
}

/* The line, with its newline, into @l; @secure is AT_SECURE. -1 when a
 * call fails. */
static inline int status_line(struct status_line *l, unsigned long long secure)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct c[2] = {};
	unsigned int r[3] = {}, g[3] = {};
	unsigned long long amb = 0;

	l->n = 0;
	if (status_sys(__NR_getresuid, (long)&r[0], (long)&r[1], (long)&r[2]) ||
	    status_sys(__NR_getresgid, (long)&g[0], (long)&g[1], (long)&g[2]) ||
	    status_sys(__NR_capget, (long)&h, (long)c, 0))
		return -1;
	for (int cap = 0; cap <= CAP_LAST_CAP; cap++)
		if (status_sys(__NR_prctl, PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, cap) == 1)
			amb |= 1ULL << cap;
	status_num(l, "pid=", status_sys(__NR_getpid, 0, 0, 0), 0);
	status_num(l, " ruid=", r[0], 0);
	status_num(l, " euid=", r[1], 0);
	status_num(l, " rgid=", g[0], 0);
	status_num(l, " egid=", g[1], 0);
	status_num(l, " suid=", r[2], 0);
	/* an invalid id changes nothing and returns the current one */
	status_num(l, " fsuid=", (unsigned int)status_sys(__NR_setfsuid, -1, 0, 0), 0);
	status_num(l, " sgid=", g[2], 0);
	status_num(l, " fsgid=", (unsigned int)status_sys(__NR_setfsgid, -1, 0, 0), 0);
	status_num(l, " Inh=", status_set(c[0].inheritable, c[1].inheritable), 1);
	status_num(l, " Prm=", status_set(c[0].permitted, c[1].permitted), 1);
	status_num(l, " Eff=", status_set(c[0].effective, c[1].effective), 1);
	status_num(l, " Amb=", amb, 1);
	status_num(l, " secure=", secure, 0);
	status_num(l, " securebits=", status_sys(__NR_prctl, PR_GET_SECUREBITS, 0, 0), 0);
	status_put(l, "\n");
	return 0;
}

#endif
