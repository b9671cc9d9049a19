/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The catalogue of scenarios: the files they execute and the exec, signal
 * and scheduling rows with the outcome SEMANTICS.md gives each, written out
 * by hand. Shared by the scenario test (which checks the outcomes) and the
 * differential workload (which runs the same events through both paths).
 */
#ifndef FCAPS_CATALOGUE_H
#define FCAPS_CATALOGUE_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <linux/capability.h>
#include "fcaps.h"
#include "fcaps_values.h"
#include "scenario.h"

#define B(cap) (1ULL << (cap))
#define RAW B(CAP_NET_RAW)
#define BIND B(CAP_NET_BIND_SERVICE)
#define KILL B(CAP_KILL)
#define CHOWN B(CAP_CHOWN)
#define SETUID B(CAP_SETUID)
#define NICE B(CAP_SYS_NICE)
#define BPF B(CAP_BPF)
#define PERFMON B(CAP_PERFMON)
#define LAST B(CAP_CHECKPOINT_RESTORE)		/* 40 */
#define FULL ((2ULL << 40) - 1)			/* root's sets in the guest */
#define U 1000

#define FC "/tmp/fc/"
#define FCN "/tmp/fcn/"				/* tmpfs mounted nosuid */
#define IMG "/mnt/"				/* ext4 image made offline */

/* Files the scenarios execute: copies of fcaps_probe or scripts. */
struct fixture {
	const char *path;
	mode_t mode;
	__u32 tag;				/* 0: no xattr */
	__u64 e, p, i;
	const char *interp;			/* a script running this */
};

static const struct fixture fixtures[] = {
	{ FC "plain", 0755 },
	{ FC "v1_raw_ep", 0755, FCAPS_V1_TAG, RAW, RAW, 0 },
	{ FC "v1_sub", 0755, FCAPS_V1_TAG, RAW, RAW | BIND, 0 },
	{ FC "v1_inh", 0755, FCAPS_V1_TAG, RAW | KILL, RAW, CHOWN | KILL },
	{ FC "v1_empty", 0755, FCAPS_V1_TAG, 0, 0, 0 },
	{ FC "v3_high", 0755, FCAPS_V3_TAG, BPF, BPF | PERFMON | RAW, LAST },
	{ FC "suid_v1", 04755, FCAPS_V1_TAG, RAW, RAW, 0 },
	{ FC "suid_plain", 04755 },
	{ FC "v1_kill", 0755, FCAPS_V1_TAG, KILL, KILL, 0 },
	{ FC "v1_super", 0755, FCAPS_V1_TAG, RAW | BIND, RAW | BIND, 0 },
	{ FC "v1_nice", 0755, FCAPS_V1_TAG, NICE, NICE, 0 },
	{ FC "interp_v1", 0755, FCAPS_V1_TAG, RAW, RAW, 0 },
	{ FC "script_capinterp", 0755, 0, 0, 0, 0, FC "interp_v1" },
	{ FC "script_capped", 0755, FCAPS_V1_TAG, RAW, RAW, 0, FC "plain" },
	{ FCN "v1_raw_ep", 0755, FCAPS_V1_TAG, RAW, RAW, 0 },
};

/* Switch settings a row needs; zero-initialised means the defaults. */
struct switches {
	unsigned int exec_off:1, kill_off:1, nosuid_ignore:1;
};

struct exec_row {
	const char *name;
	const char *file;
	struct creds c;
	struct switches sw;
	int want_errno;
	uid_t want_euid;
	__u64 e, p, i, a;
	int secure;
};

static const struct exec_row exec_rows[] = {
	{ "no xattr, uid 0: 6.1 root", FC "plain", { 0 }, {}, 0, 0, FULL, FULL, 0, 0, 0 },
	{ "no xattr, uid 1000: 6.1 user", FC "plain", { U }, {}, 0, U, 0, 0, 0, 0, 0 },
	{ "v1 fE = fP, uid 1000", FC "v1_raw_ep", { U }, {}, 0, U, RAW, RAW, 0, 0, 1 },
	{ "v1 fE strict subset of fP, uid 1000", FC "v1_sub", { U }, {}, 0, U,
	  RAW, RAW | BIND, 0, 0, 1 },
	{ "v1 fI, empty pI, uid 1000", FC "v1_inh", { U }, {}, 0, U, RAW, RAW, 0, 0, 1 },
	{ "v1 fI meets pI, uid 1000", FC "v1_inh", { U, KILL | SETUID }, {}, 0, U,
	  RAW | KILL, RAW | KILL, KILL | SETUID, 0, 1 },
	{ "v3 caps 32-40 granted, uid 1000", FC "v3_high", { U }, {}, 0, U,
	  BPF, BPF | PERFMON | RAW, 0, 0, 1 },
	{ "v3 fI cap 40 meets pI, uid 1000", FC "v3_high", { U, LAST }, {}, 0, U,
	  BPF, BPF | PERFMON | RAW | LAST, LAST, 0, 1 },
	{ "uid 0, v1 narrower than root", FC "v1_raw_ep", { 0 }, {}, 0, 0, RAW, RAW, 0, 0, 0 },
	{ "uid 0, v1 with empty sets: nothing", FC "v1_empty", { 0 }, {}, 0, 0, 0, 0, 0, 0, 0 },
	{ "uid 1000, v1 with empty sets", FC "v1_empty", { U }, {}, 0, U, 0, 0, 0, 0, 0 },
	{ "setuid-root file with v1, uid 1000", FC "suid_v1", { U }, {}, 0, 0,
	  RAW, RAW, 0, 0, 1 },
	{ "setuid-root file, no xattr, uid 1000 (6.1)", FC "suid_plain", { U }, {}, 0, 0,
	  FULL, FULL, 0, 0, 1 },
	{ "v1 clears the ambient set", FC "v1_raw_ep", { U, 0, BIND }, {}, 0, U,
	  RAW, RAW, BIND, 0, 1 },
	{ "no xattr keeps the ambient set (6.1)", FC "plain", { U, 0, BIND }, {}, 0, U,
	  BIND, BIND, BIND, BIND, 0 },
	{ "no_new_privs: pP' limited to pP", FC "v1_raw_ep", { U, .nnp = 1 }, {}, 0, U,
	  0, 0, 0, 0, 1 },
	{ "ptraced by uid 1000: pP' limited to pP", FC "v1_raw_ep", { U, .traced = 1 }, {},
	  0, U, 0, 0, 0, 0, 1 },
	{ "nosuid mount: v1 ignored, uid 1000", FCN "v1_raw_ep", { U }, {}, 0, U,
	  0, 0, 0, 0, 0 },
	{ "nosuid mount: v1 ignored, uid 0", FCN "v1_raw_ep", { 0 }, {}, 0, 0,
	  FULL, FULL, 0, 0, 0 },
	{ "nosuid mount, nosuid_ignore=1: v1 honoured", FCN "v1_raw_ep", { U },
	  { .nosuid_ignore = 1 }, 0, U, RAW, RAW, 0, 0, 1 },
	{ "exec=0: v1 ignored, uid 1000", FC "v1_raw_ep", { U }, { .exec_off = 1 }, 0, U,
	  0, 0, 0, 0, 0 },
	{ "exec=0: v1 ignored, uid 0", FC "v1_raw_ep", { 0 }, { .exec_off = 1 }, 0, 0,
	  FULL, FULL, 0, 0, 0 },
	{ "script: capped interpreter applies", FC "script_capinterp", { U }, {}, 0, U,
	  RAW, RAW, 0, 0, 1 },
	{ "script: capped script, plain interpreter", FC "script_capped", { U }, {}, 0, U,
	  0, 0, 0, 0, 0 },
	{ "ext4, v1 written offline, uid 1000", IMG "good_v1", { U }, {}, 0, U,
	  RAW, RAW, 0, 0, 1 },
	{ "ext4, v3 written offline, uid 1000", IMG "good_v3", { U }, {}, 0, U,
	  BPF, BPF, 0, 0, 1 },
	{ "exec=0: malformed value ignored", IMG "m_v1_size15", { U }, { .exec_off = 1 }, 0, U,
	  0, 0, 0, 0, 0 },
	{ "exec=0: v3 value (28 bytes) ignored", IMG "good_v3", { U }, { .exec_off = 1 }, 0, U,
	  0, 0, 0, 0, 0 },
	{ "exec=0: 29-byte malformed v3 ignored", IMG "m_v3_size29", { U }, { .exec_off = 1 },
	  0, U, 0, 0, 0, 0, 0 },
};

struct pair_row {
	const char *name;
	const char *target;		/* runs "pause" */
	uid_t tuid;
	const char *sender;
	uid_t suid;
	const char *op;			/* NULL: kill with sig; else sched op */
	int sig;
	struct switches sw;
	int want_errno;
	unsigned int uid_check:1;	/* refused before any LSM hook runs */
};

static const struct pair_row pair_rows[] = {
	{ "uid 1000, empty pP, to capped uid 1000: EPERM", FC "v1_raw_ep", U,
	  FC "plain", U, NULL, SIGTERM, {}, EPERM },
	{ "uid 1000 sender with a superset: allowed", FC "v1_raw_ep", U,
	  FC "v1_super", U, NULL, SIGTERM, {}, 0 },
	{ "uid 1000 sender with CAP_KILL: allowed", FC "v1_raw_ep", U,
	  FC "v1_kill", U, NULL, SIGTERM, {}, 0 },
	{ "uid 1000 to uncapped uid 1000: allowed", FC "plain", U,
	  FC "plain", U, NULL, SIGTERM, {}, 0 },
	{ "root to capped uid 1000: allowed", FC "v1_raw_ep", U,
	  FC "plain", 0, NULL, SIGTERM, {}, 0 },
	{ "root to capped root: allowed", FC "v1_raw_ep", 0,
	  FC "plain", 0, NULL, SIGTERM, {}, 0 },
	{ "kill=0: uid 1000 to capped uid 1000 allowed", FC "v1_raw_ep", U,
	  FC "plain", U, NULL, SIGTERM, { .kill_off = 1 }, 0 },
	{ "SIGCONT in the session to capped uid 1000: EPERM", FC "v1_raw_ep", U,
	  FC "plain", U, NULL, SIGCONT, {}, EPERM },
	{ "SIGCONT in the session to capped root: EPERM", FC "v1_raw_ep", 0,
	  FC "plain", U, NULL, SIGCONT, {}, EPERM },
	{ "SIGCONT in the session to capped root, kill=0: allowed", FC "v1_raw_ep", 0,
	  FC "plain", U, NULL, SIGCONT, { .kill_off = 1 }, 0 },
	{ "SIGTERM to uncapped root: EPERM by the uid check", FC "plain", 0,
	  FC "plain", U, NULL, SIGTERM, { .kill_off = 1 }, EPERM, 1 },
	{ "setpriority on capped uid 1000: EPERM", FC "v1_raw_ep", U,
	  FC "plain", U, "nice", 0, {}, EPERM },
	{ "sched_setscheduler on capped uid 1000: EPERM", FC "v1_raw_ep", U,
	  FC "plain", U, "sched", 0, {}, EPERM },
	{ "ioprio_set on capped uid 1000: EPERM", FC "v1_raw_ep", U,
	  FC "plain", U, "ioprio", 0, {}, EPERM },
	{ "setpriority with CAP_SYS_NICE: allowed", FC "v1_raw_ep", U,
	  FC "v1_nice", U, "nice", 0, {}, 0 },
	{ "setpriority from a superset: allowed", FC "v1_raw_ep", U,
	  FC "v1_super", U, "nice", 0, {}, 0 },
	{ "setpriority on uncapped uid 1000: allowed", FC "plain", U,
	  FC "plain", U, "nice", 0, {}, 0 },
};

static inline const struct fixture *fixture(const char *path)
{
	for (size_t n = 0; n < sizeof(fixtures) / sizeof(fixtures[0]); n++)
		if (!strcmp(fixtures[n].path, path))
			return &fixtures[n];
	return NULL;
}

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

/* Create the fixtures; @with_xattrs is 0 where the kernel refuses legacy
 * values (stock). */
static inline void setup_fixtures(int with_xattrs)
{
	mkdir("/tmp/fc", 0755);
	mkdir("/tmp/fcn", 0755);
	if (mount("tmpfs", "/tmp/fcn", "tmpfs", MS_NOSUID, "mode=0755") ||
	    (mount("/dev/vda", "/mnt", "ext4", 0, NULL) && errno != EBUSY)) {
		perror("scenarios: mounting /tmp/fcn and the test image on /mnt");
		exit(1);
	}
	for (size_t n = 0; n < sizeof(fixtures) / sizeof(fixtures[0]); n++) {
		const struct fixture *f = &fixtures[n];
		struct fcaps_sets sets = { f->e, f->p, f->i };
		__u8 buf[FCAPS_MAX_SIZE];
		char script[128];
		int rc;

		if (f->interp) {
			int fd = open(f->path, O_CREAT | O_WRONLY | O_TRUNC, 0755);

			snprintf(script, sizeof(script), "#!%s status\n", f->interp);
			rc = fd < 0 || write(fd, script, strlen(script)) < 0;
			if (fd >= 0)
				close(fd);
		} else {
			rc = copy_file(PROBE, f->path);
		}
		rc = rc || chmod(f->path, f->mode);
		if (!rc && f->tag && with_xattrs)
			rc = setxattr(f->path, FCAPS_XATTR_NAME, buf,
				      fcaps_encode(&sets, f->tag, buf), 0);
		if (rc) {
			perror(f->path);
			exit(1);
		}
	}
}

#endif /* FCAPS_CATALOGUE_H */
