/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The capability battery: what a process can actually do after an exec,
 * one real system call per operation, each chosen so that one capability
 * (or, for bpf, either of two) decides it. fcaps_probe runs it, the
 * workload reports it, tests/diff/compare.py compares and tabulates it:
 * this table is the one definition (compare.py reads it from here).
 *
 * X(name, capability, alternative capability or -1, where): "self" runs
 * in the exec'd process, "child" in a forked child (a copy of its
 * credentials; its ids or limits change, so it runs last and exits).
 *
 * Outcome: 1 allowed, 0 refused (EPERM or EACCES), otherwise -errno (the
 * operation could not be tried here, e.g. audit not built in).
 */
#ifndef FCAPS_BATTERY_H
#define FCAPS_BATTERY_H

#define FCAPS_BATTERY(X)						\
	X(net_bind, CAP_NET_BIND_SERVICE, -1, self)			\
	X(net_raw, CAP_NET_RAW, -1, self)				\
	X(chown, CAP_CHOWN, -1, self)					\
	X(dac_write, CAP_DAC_OVERRIDE, -1, self)			\
	X(fowner, CAP_FOWNER, -1, self)					\
	X(kill, CAP_KILL, -1, self)					\
	X(rlimit, CAP_SYS_RESOURCE, -1, self)				\
	X(mknod, CAP_MKNOD, -1, self)					\
	X(setfcap, CAP_SETFCAP, -1, self)				\
	X(bpf_map, CAP_BPF, CAP_SYS_ADMIN, self)			\
	X(immutable, CAP_LINUX_IMMUTABLE, -1, self)			\
	X(sethostname, CAP_SYS_ADMIN, -1, self)				\
	X(settime, CAP_SYS_TIME, -1, self)				\
	X(audit_write, CAP_AUDIT_WRITE, -1, self)			\
	X(mmap_low, CAP_SYS_RAWIO, -1, self)				\
	X(ptrace, CAP_SYS_PTRACE, -1, child)				\
	X(nice, CAP_SYS_NICE, -1, child)				\
	X(mlock, CAP_IPC_LOCK, -1, child)				\
	X(chroot, CAP_SYS_CHROOT, -1, child)				\
	X(setgid, CAP_SETGID, -1, child)				\
	X(setuid, CAP_SETUID, -1, child)

#include <sys/types.h>

/* the battery as PREFIXbat_NAME=OUTCOME words (battery.c) */
void run_battery(const char *prefix, pid_t victim, pid_t root);
/* a page at @addr: 1 mapped, 0 refused, -errno */
int battery_map_at(unsigned long addr);

/* The fixtures the workload makes (as root) before its first exec event */
#define BATTERY_DIR	"/tmp/battery"
#define BATTERY_LOCKED	BATTERY_DIR "/locked"	/* 0000, owned by BATTERY_UID */
#define BATTERY_RW	BATTERY_DIR "/rw"	/* 01777: files the probe makes */
#define BATTERY_UID	54321			/* no actor of the workload */

#endif
