/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The catalogue of scenarios: the files they execute and the exec, signal
 * and scheduling rows with the outcome SEMANTICS.md gives each, written out
 * by hand. Shared by the scenario test (which checks the outcomes) and the
 * differential workload (which runs the same events through both paths).
 *
 * Which rows decide which branch (row names as below; "exec:", "signal:"
 * and "sched:" are the prefixes the workload puts before them):
 *
 * SEMANTICS 2, exec
 * - step 5, pP' = (fP & bset) | (fI & pI): "bset without cap_net_raw:
 *   fP & bset, uid 1000", "bset without cap_net_raw, uid 0: nothing",
 *   "bset does not bound fI & pI", "bset without cap_net_raw, uid 0, no
 *   xattr (6.1)"
 * - setid files: "setgid file, no xattr, uid 1000 (6.1)", "setgid file
 *   with v1, uid 1000", "setgid file with v1, uid 0: setid makes
 *   AT_SECURE", "setgid without group-execute (02745) is not setid,
 *   uid 1000", "02745 file with v1, uid 0: not setid, AT_SECURE 0",
 *   "setuid-1000 file with v1, run by root: euid 1000", "setuid-1000 file,
 *   no xattr, run by root (6.1)"
 * - real uid != effective uid without a setid file: "ruid 1000 euid 0, v1
 *   with empty sets: setid by 6.1's measure", "ruid 1000 euid 0, v1: the
 *   file's sets", "ruid 0 euid 1000, v1: setid by 6.1's measure", "ruid 0
 *   euid 1000, no xattr (6.1)"
 * - step 7, AT_SECURE's third term (fI only): "fI only, uid 1000, empty
 *   pI: nothing, AT_SECURE all the same", "fI only, uid 1000, pI meets
 *   fI", "fI only, uid 0: AT_SECURE 0"; its second (fP, fE empty): "fP
 *   only (fE empty), uid 1000: nothing effective, AT_SECURE by fP", "fP
 *   only (fE empty), uid 0: permitted, not effective"
 * - step 1, nosuid: "nosuid mount: v3 ignored, uid 1000", "nosuid mount,
 *   nosuid_ignore=1: v3 honoured", "nosuid mount: setuid-root file with v1
 *   ignored, uid 1000", "nosuid mount, nosuid_ignore=1: v1 honoured, setuid
 *   bit still not", "nosuid mount: setuid-root file, no xattr (6.1)",
 *   "nosuid bind of ext4: malformed value ignored, uid 1000", "nosuid bind
 *   of ext4: malformed value ignored, uid 0", "nosuid bind of ext4,
 *   nosuid_ignore=1: malformed value is EPERM", "nosuid bind of ext4: v3
 *   ignored", "nosuid bind of ext4: setuid-root file with v1 ignored",
 *   "nosuid bind of ext4: 3-byte value not even read", "nosuid bind of
 *   ext4: 6.1 v2 value ignored (6.1)"
 * - scripts (the interpreter decides): "script: capped script, capped
 *   interpreter: the interpreter's sets", "script: interpreter with a
 *   malformed value: EPERM, uid 1000" (and uid 0), "script on a nosuid
 *   mount, capped interpreter elsewhere: applies", "script: interpreter on
 *   a nosuid mount: ignored", "script: interpreter on a nosuid mount,
 *   nosuid_ignore=1: honoured"
 * - step 6, unsafe exec: "shared fs (CLONE_FS): pP' limited to pP,
 *   uid 1000", "shared fs, uid 0: pP' within pP, no downgrade", "shared
 *   fs: setuid-root file with v1 falls back to uid 1000", "ptraced by root
 *   holding CAP_SYS_PTRACE: no downgrade", "ptraced by root holding
 *   CAP_SYS_PTRACE: setuid-root file with v1 keeps euid 0", "ptraced by uid
 *   1000: setuid-root file with v1 falls back to uid 1000", "ptraced by
 *   uid 1000: pP' limited to pP", "no_new_privs: pP' limited to pP"
 * - step 3, SECURE_NOROOT: "SECURE_NOROOT, uid 0, no xattr: no root
 *   privilege (6.1)", "SECURE_NOROOT, uid 0, v1: the file's sets all the
 *   same", "SECURE_NOROOT, setuid-root file, no xattr, uid 1000 (6.1)",
 *   "SECURE_NOROOT, uid 0, ambient set, no xattr: the ambient set (6.1)"
 * - ambient sets: "several ambient bits kept without xattr (6.1)", "v1
 *   clears several ambient bits", "root with an ambient set, no xattr
 *   (6.1)", "root with an ambient set, v1: only the file's sets", "ambient
 *   set, setgid file, no xattr (6.1): pA cleared"
 * - no_new_privs and setid bits: "no_new_privs: setgid file with v1, uid
 *   0: not setid, AT_SECURE 0", "no_new_privs: setuid-root file, no xattr,
 *   uid 1000 (6.1): not setid"; the downgrade keeps the ids of a caller
 *   holding CAP_SETUID: "shared fs, uid 0: setuid-1000 file with v1 keeps
 *   euid 1000 (CAP_SETUID)"
 * - SEMANTICS 1, formats: "ext4, 6.1 v2 value, uid 1000: 6.1's rules",
 *   "ext4, 6.1 v2 value, uid 0: root keeps everything (6.1)", "ext4, 6.1
 *   v3 value (rootid 0), uid 1000: 6.1's rules", "exec=0: a 6.1 v2 value
 *   still applies", the v3 rootid, the bounding set against fP and a
 *   setuid-root file with a 6.1 value (rows naming "rootid 1000", "bset
 *   without cap_net_raw: EPERM (6.1)", "setuid-root file with a 6.1 v2
 *   value"), "ext4, unknown tag: EINVAL (6.1), uid 1000", "ext4,
 *   unknown tag: EINVAL (6.1), uid 0", "ext4, 1-byte value: EINVAL (6.1)"
 *   (and 2-, 3-byte), "exec=0: a 1-byte value is still EINVAL (6.1)";
 *   every TV_MALFORMED value by the loop "ext4 NAME, uid N" (EPERM)
 * The random events (fcaps_workload.c, gen_exec and gen_pair) have one
 * "focus" per branch above, so that at 5000 events each decides at least
 * 20 of them; --list shows every random event's focus.
 * SEMANTICS 3, signals
 * - CAP_KILL in pP but not pE: "uid 1000 sender with CAP_KILL in pP only:
 *   EPERM", "uid 1000 sender with a superset, pE emptied: allowed (pP
 *   decides)"
 * - user namespaces: "sender inside unshare -Ur to capped uid 1000: EPERM",
 *   "sender inside unshare -Ur to uncapped uid 1000: EPERM (CAP_KILL only
 *   in its own namespace)", "sender inside unshare -Ur to capped uid 1000,
 *   kill=0: allowed", "target in its own unshare -Ur, uid 1000 sender
 *   without a superset: allowed (the owner holds CAP_KILL there)", "target
 *   in its own unshare -Ur, sender with a superset: allowed", "target in
 *   its own unshare -Ur, sender ruid 1000 euid 1001 (not the owner):
 *   EPERM", "sender ruid 1000 euid 1001 to uncapped uid 1000 in the same
 *   namespace: allowed"; the owner's chain: "target in a namespace uid 1000
 *   owns under one root owns, uid 1000 sender: EPERM" (and kill=0: allowed)
 * - process groups: "kill(-pgid), a capped and an uncapped member: 0, the
 *   capped one survives", "kill(-pgid), both members capped: EPERM",
 *   "kill(-pgid), a capped and an uncapped member, kill=0: both signalled"
 * - sessions: "SIGCONT from another session to capped uid 1000: EPERM",
 *   "SIGCONT from another session to uncapped root, kill=0: EPERM by the
 *   uid check", "SIGCONT from another session to capped root: EPERM by the
 *   uid check" (against the in-session SIGCONT rows)
 * - thread groups: "tgkill to a sibling thread after the sending thread
 *   emptied its sets: EPERM (no uid check)", "tgkill to a sibling thread,
 *   same credentials: allowed", "tgkill to a sibling thread after emptying
 *   the sending thread's sets, kill=0: allowed", "root: tgkill to a
 *   sibling thread after emptying the sending thread's sets: EPERM"
 * - other ways to signal: "prlimit on capped uid 1000: EPERM", "SIGIO to
 *   capped uid 1000: dropped", against "prlimit on uncapped uid 1000:
 *   allowed", "SIGIO to uncapped uid 1000: delivered", CAP_KILL, kill=0
 *   and a sender in its own unshare -Ur; "prlimit on root: EPERM by the
 *   uid check"
 * SEMANTICS 4, scheduling
 * - CAP_SYS_NICE in pP only: "setpriority with CAP_SYS_NICE in pP only:
 *   EPERM", "ioprio_set with CAP_SYS_NICE in pP only: EPERM"; in pE, per
 *   call: "setpriority with CAP_SYS_NICE: allowed", "ioprio_set with
 *   CAP_SYS_NICE: allowed", "sched_setscheduler with CAP_SYS_NICE: allowed"
 * - across namespaces (raw sets): "setpriority from inside unshare -Ur on
 *   capped uid 1000: allowed (6.1 compares the raw sets)", "setpriority on
 *   a target in its own unshare -Ur, uid 1000 sender: allowed",
 *   "setpriority on a target in a namespace uid 1000 owns under one root
 *   owns: EPERM"
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
#include <linux/securebits.h>
#include "fcaps.h"
#include "fcaps_values.h"
#include "scenario.h"
#include "xattr_event.h"
#include "caps_event.h"
#include "copy_file.h"

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
#define SETFCAP B(CAP_SETFCAP)
#define SYSADMIN B(CAP_SYS_ADMIN)
#define FULL ((2ULL << 40) - 1)			/* root's sets in the guest */
#define U 1000
#define G 2000					/* a group nobody runs as */
#define NOROOT SECBIT_NOROOT

#define FC "/tmp/fc/"
#define FCN "/tmp/fcn/"				/* tmpfs mounted nosuid */
#define IMG "/mnt/"				/* ext4 image made offline */
#define IMGN "/mnt-nosuid/"			/* the same, bound nosuid,ro */
#define FR "/tmp/fcr/"				/* ramfs: no xattr support */

/* Files the scenarios execute: copies of fcaps_probe or scripts. */
struct fixture {
	const char *path;
	mode_t mode;
	__u32 tag;				/* 0: no xattr */
	__u64 e, p, i;
	const char *interp;			/* a script running this */
	uid_t uid;				/* owner (root unless set) */
	gid_t gid;
};

static const struct fixture fixtures[] = {
	{ FC "plain", 0755 },
	{ FC "v1_raw_ep", 0755, FCAPS_V1_TAG, RAW, RAW, 0 },
	{ FC "v1_sub", 0755, FCAPS_V1_TAG, RAW, RAW | BIND, 0 },
	{ FC "v1_inh", 0755, FCAPS_V1_TAG, RAW | KILL, RAW, CHOWN | KILL },
	{ FC "v1_empty", 0755, FCAPS_V1_TAG, 0, 0, 0 },
	{ FC "v1_fi_only", 0755, FCAPS_V1_TAG, 0, 0, CHOWN },
	{ FC "v1_p_only", 0755, FCAPS_V1_TAG, 0, RAW | BIND, 0 },
	{ FC "v1_e_only", 0755, FCAPS_V1_TAG, RAW, 0, 0 },
	{ FC "v3_high", 0755, FCAPS_V3_TAG, BPF, BPF | PERFMON | RAW, LAST },
	{ FC "suid_v1", 04755, FCAPS_V1_TAG, RAW, RAW, 0 },
	{ FC "suid_plain", 04755 },
	{ FC "suid_u_v1", 04755, FCAPS_V1_TAG, RAW, RAW, 0, .uid = U, .gid = U },
	{ FC "suid_u_plain", 04755, .uid = U, .gid = U },
	{ FC "sgid_v1", 02755, FCAPS_V1_TAG, RAW, RAW, 0, .gid = G },
	{ FC "sgid_plain", 02755, .gid = G },
	{ FC "sgid_nox_v1", 02745, FCAPS_V1_TAG, RAW, RAW, 0, .gid = G },
	{ FC "sgid_nox", 02745, .gid = G },
	{ FC "v1_kill", 0755, FCAPS_V1_TAG, KILL, KILL, 0 },
	{ FC "v1_super", 0755, FCAPS_V1_TAG, RAW | BIND, RAW | BIND, 0 },
	{ FC "v1_nice", 0755, FCAPS_V1_TAG, NICE, NICE, 0 },
	{ FC "v1_setfcap", 0755, FCAPS_V1_TAG, SETFCAP, SETFCAP, 0 },
	{ FC "interp_v1", 0755, FCAPS_V1_TAG, RAW, RAW, 0 },
	{ FC "script_capinterp", 0755, 0, 0, 0, 0, FC "interp_v1" },
	{ FC "script_capped", 0755, FCAPS_V1_TAG, RAW, RAW, 0, FC "plain" },
	{ FC "script_both", 0755, FCAPS_V1_TAG, CHOWN, CHOWN, 0, FC "interp_v1" },
	{ FC "script_badinterp", 0755, 0, 0, 0, 0, IMG "m_v1_size15" },
	{ FC "script_nosuidinterp", 0755, 0, 0, 0, 0, FCN "v1_raw_ep" },
	{ FCN "v1_raw_ep", 0755, FCAPS_V1_TAG, RAW, RAW, 0 },
	{ FCN "v3_high", 0755, FCAPS_V3_TAG, BPF, BPF | PERFMON | RAW, LAST },
	{ FCN "suid_v1", 04755, FCAPS_V1_TAG, RAW, RAW, 0 },
	{ FCN "suid_plain", 04755 },
	{ FCN "script_capinterp", 0755, 0, 0, 0, 0, FC "interp_v1" },
	{ FR "plain", 0755 },
};

#define NFIXTURES (sizeof(fixtures) / sizeof(fixtures[0]))

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
	/* The egid, where a setgid file sets it (egid_set); otherwise the
	 * caller's gid stays. The real ids and the securebits (but
	 * SECBIT_KEEP_CAPS) never change on exec. */
	gid_t want_egid;
	unsigned int egid_set:1;
	const char *bpf_skip;	/* why the BPF runs cannot check this row (none
				 * today: the BPF side predicts 6.1's formats too) */
	/* A chain: fcaps_probe words run before the row's file, from the
	 * first program spawn() execs ({ FILE, options..., "exec"|"trace" }),
	 * so that the row's exec starts from sets earlier rules computed */
	const char *const *chain;
};

#define CHAIN(...) ((const char *const[]){ __VA_ARGS__, NULL })

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

	/* the bounding set bounds fP only */
	{ "bset without cap_net_raw: fP & bset, uid 1000", FC "v1_sub",
	  { U, .bset_drop = RAW }, {}, 0, U, 0, BIND, 0, 0, 1 },
	{ "bset without cap_net_raw, uid 0: nothing", FC "v1_raw_ep",
	  { 0, .bset_drop = RAW }, {}, 0, 0, 0, 0, 0, 0, 0 },
	{ "bset does not bound fI & pI", FC "v1_inh", { U, KILL, .bset_drop = KILL | RAW },
	  {}, 0, U, KILL, KILL, KILL, 0, 1 },
	{ "bset without cap_net_raw, uid 0, no xattr (6.1)", FC "plain",
	  { 0, .bset_drop = RAW }, {}, 0, 0, FULL & ~RAW, FULL & ~RAW, 0, 0, 0 },

	/* setgid, and setuid to a user other than root */
	{ "setgid file, no xattr, uid 1000 (6.1)", FC "sgid_plain", { U }, {}, 0, U,
	  0, 0, 0, 0, 1, G, 1 },
	{ "setgid file with v1, uid 1000", FC "sgid_v1", { U }, {}, 0, U,
	  RAW, RAW, 0, 0, 1, G, 1 },
	{ "setgid file with v1, uid 0: setid makes AT_SECURE", FC "sgid_v1", { 0 }, {}, 0, 0,
	  RAW, RAW, 0, 0, 1, G, 1 },
	{ "setgid without group-execute (02745) is not setid, uid 1000", FC "sgid_nox",
	  { U }, {}, 0, U, 0, 0, 0, 0, 0, U, 1 },
	{ "02745 file with v1, uid 0: not setid, AT_SECURE 0", FC "sgid_nox_v1", { 0 }, {},
	  0, 0, RAW, RAW, 0, 0, 0, 0, 1 },
	{ "setuid-1000 file with v1, run by root: euid 1000", FC "suid_u_v1", { 0 }, {},
	  0, U, RAW, RAW, 0, 0, 1 },
	{ "setuid-1000 file, no xattr, run by root (6.1)", FC "suid_u_plain", { 0 }, {},
	  0, U, 0, FULL, 0, 0, 1 },

	/* the real and effective uids differ before a plain exec */
	{ "ruid 1000 euid 0, v1 with empty sets: setid by 6.1's measure", FC "v1_empty",
	  { U, .seteuid = 1, .euid = 0 }, {}, 0, 0, 0, 0, 0, 0, 1 },
	{ "ruid 1000 euid 0, v1: the file's sets", FC "v1_raw_ep",
	  { U, .seteuid = 1, .euid = 0 }, {}, 0, 0, RAW, RAW, 0, 0, 1 },
	{ "ruid 0 euid 1000, v1: setid by 6.1's measure", FC "v1_raw_ep",
	  { 0, .seteuid = 1, .euid = U }, {}, 0, U, RAW, RAW, 0, 0, 1 },
	{ "ruid 0 euid 1000, no xattr (6.1)", FC "plain",
	  { 0, .seteuid = 1, .euid = U }, {}, 0, U, 0, FULL, 0, 0, 1 },

	/* fI alone: nothing gained without pI, AT_SECURE for a non-root uid */
	{ "fI only, uid 1000, empty pI: nothing, AT_SECURE all the same", FC "v1_fi_only",
	  { U }, {}, 0, U, 0, 0, 0, 0, 1 },
	{ "fI only, uid 1000, pI meets fI", FC "v1_fi_only", { U, CHOWN }, {}, 0, U,
	  0, CHOWN, CHOWN, 0, 1 },
	{ "fI only, uid 0: AT_SECURE 0", FC "v1_fi_only", { 0 }, {}, 0, 0, 0, 0, 0, 0, 0 },
	{ "fP only (fE empty), uid 1000: nothing effective, AT_SECURE by fP", FC "v1_p_only",
	  { U }, {}, 0, U, 0, RAW | BIND, 0, 0, 1 },
	{ "fP only (fE empty), uid 0: permitted, not effective", FC "v1_p_only", { 0 }, {},
	  0, 0, 0, RAW | BIND, 0, 0, 0 },
	{ "fE only (fP, fI empty), uid 1000: nothing, AT_SECURE by fE", FC "v1_e_only", { U },
	  {}, 0, U, 0, 0, 0, 0, 1 },
	{ "fE only (fP, fI empty), uid 0: nothing, AT_SECURE 0", FC "v1_e_only", { 0 }, {},
	  0, 0, 0, 0, 0, 0, 0 },

	/* nosuid mounts: tmpfs, and the ext4 image bound nosuid */
	{ "nosuid mount: v3 ignored, uid 1000", FCN "v3_high", { U }, {}, 0, U,
	  0, 0, 0, 0, 0 },
	{ "nosuid mount, nosuid_ignore=1: v3 honoured", FCN "v3_high", { U },
	  { .nosuid_ignore = 1 }, 0, U, BPF, BPF | PERFMON | RAW, 0, 0, 1 },
	{ "nosuid mount: setuid-root file with v1 ignored, uid 1000", FCN "suid_v1", { U },
	  {}, 0, U, 0, 0, 0, 0, 0 },
	{ "nosuid mount, nosuid_ignore=1: v1 honoured, setuid bit still not", FCN "suid_v1",
	  { U }, { .nosuid_ignore = 1 }, 0, U, RAW, RAW, 0, 0, 1 },
	{ "nosuid mount: setuid-root file, no xattr (6.1)", FCN "suid_plain", { U }, {}, 0, U,
	  0, 0, 0, 0, 0 },
	{ "nosuid bind of ext4: malformed value ignored, uid 1000", IMGN "m_v1_size15", { U },
	  {}, 0, U, 0, 0, 0, 0, 0 },
	{ "nosuid bind of ext4: malformed value ignored, uid 0", IMGN "m_v3_cap41_e", { 0 },
	  {}, 0, 0, FULL, FULL, 0, 0, 0 },
	{ "nosuid bind of ext4, nosuid_ignore=1: malformed value is EPERM", IMGN "m_v1_size15",
	  { U }, { .nosuid_ignore = 1 }, EPERM },
	{ "nosuid bind of ext4: v3 ignored", IMGN "good_v3", { U }, {}, 0, U, 0, 0, 0, 0, 0 },
	{ "nosuid bind of ext4: setuid-root file with v1 ignored", IMGN "suid_good_v1", { U },
	  {}, 0, U, 0, 0, 0, 0, 0 },
	{ "ext4: setuid-root file with v1, uid 1000", IMG "suid_good_v1", { U }, {}, 0, 0,
	  RAW, RAW, 0, 0, 1 },
	{ "nosuid bind of ext4: 3-byte value not even read", IMGN "short_3", { U }, {}, 0, U,
	  0, 0, 0, 0, 0 },
	{ "nosuid bind of ext4: 6.1 v2 value ignored (6.1)", IMGN "v2_raw", { U }, {}, 0, U,
	  0, 0, 0, 0, 0 },

	/* scripts: the interpreter (its value, its mount) decides */
	{ "script: capped script, capped interpreter: the interpreter's sets",
	  FC "script_both", { U }, {}, 0, U, RAW, RAW, 0, 0, 1 },
	{ "script: interpreter with a malformed value: EPERM, uid 1000", FC "script_badinterp",
	  { U }, {}, EPERM },
	{ "script: interpreter with a malformed value: EPERM, uid 0", FC "script_badinterp",
	  { 0 }, {}, EPERM },
	{ "script on a nosuid mount, capped interpreter elsewhere: applies",
	  FCN "script_capinterp", { U }, {}, 0, U, RAW, RAW, 0, 0, 1 },
	{ "script: interpreter on a nosuid mount: ignored", FC "script_nosuidinterp", { U },
	  {}, 0, U, 0, 0, 0, 0, 0 },
	{ "script: interpreter on a nosuid mount, nosuid_ignore=1: honoured",
	  FC "script_nosuidinterp", { U }, { .nosuid_ignore = 1 }, 0, U, RAW, RAW, 0, 0, 1 },

	/* unsafe execs: shared fs, and tracers with and without CAP_SYS_PTRACE */
	{ "shared fs (CLONE_FS): pP' limited to pP, uid 1000", FC "v1_raw_ep",
	  { U, .shared_fs = 1 }, {}, 0, U, 0, 0, 0, 0, 1 },
	{ "shared fs, uid 0: pP' within pP, no downgrade", FC "v1_raw_ep",
	  { 0, .shared_fs = 1 }, {}, 0, 0, RAW, RAW, 0, 0, 0 },
	{ "shared fs: setuid-root file with v1 falls back to uid 1000", FC "suid_v1",
	  { U, .shared_fs = 1 }, {}, 0, U, 0, 0, 0, 0, 1 },
	{ "ptraced by root holding CAP_SYS_PTRACE: no downgrade", FC "v1_raw_ep",
	  { U, .traced = 1, .tracer_cap = 1 }, {}, 0, U, RAW, RAW, 0, 0, 1 },
	{ "ptraced by root holding CAP_SYS_PTRACE: setuid-root file with v1 keeps euid 0",
	  FC "suid_v1", { U, .traced = 1, .tracer_cap = 1 }, {}, 0, 0, RAW, RAW, 0, 0, 1 },
	{ "ptraced by uid 1000: setuid-root file with v1 falls back to uid 1000",
	  FC "suid_v1", { U, .traced = 1 }, {}, 0, U, 0, 0, 0, 0, 1 },
	/* setid without a setid file (ruid != euid), unsafe by no_new_privs: the
	 * ids fall back even for a caller holding CAP_SETUID, and AT_SECURE is
	 * judged before the fallback */
	{ "no_new_privs, ruid 1000 euid 0, v1: euid falls back to 1000", FC "v1_raw_ep",
	  { U, .nnp = 1, .seteuid = 1, .euid = 0 }, {}, 0, U, RAW, RAW, 0, 0, 1 },
	{ "no_new_privs, ruid 0 euid 1000, v1: euid falls back to 0, AT_SECURE by setid",
	  FC "v1_raw_ep", { 0, .nnp = 1, .seteuid = 1, .euid = U }, {}, 0, 0,
	  RAW, RAW, 0, 0, 1 },
	/* a setid exec that gains nothing is downgraded all the same */
	{ "shared fs, uid 1000 holding cap_net_raw (ambient): setgid file with v1 falls back "
	  "to gid 1000", FC "sgid_v1", { U, 0, RAW, .shared_fs = 1 }, {}, 0, U,
	  RAW, RAW, RAW, 0, 1 },

	/* SECURE_NOROOT: no root privilege, but a legacy value is the same */
	{ "SECURE_NOROOT, uid 0, no xattr: no root privilege (6.1)", FC "plain",
	  { 0, .securebits = NOROOT }, {}, 0, 0, 0, 0, 0, 0, 0 },
	{ "SECURE_NOROOT, uid 0, v1: the file's sets all the same", FC "v1_raw_ep",
	  { 0, .securebits = NOROOT }, {}, 0, 0, RAW, RAW, 0, 0, 0 },
	{ "SECURE_NOROOT, setuid-root file, no xattr, uid 1000 (6.1)", FC "suid_plain",
	  { U, .securebits = NOROOT }, {}, 0, 0, 0, 0, 0, 0, 1 },
	{ "SECURE_NOROOT, uid 0, ambient set, no xattr: the ambient set (6.1)", FC "plain",
	  { 0, 0, BIND, .securebits = NOROOT }, {}, 0, 0, BIND, BIND, BIND, BIND, 0 },

	/* ambient sets of several bits, and root's */
	{ "several ambient bits kept without xattr (6.1)", FC "plain",
	  { U, 0, BIND | CHOWN | KILL }, {}, 0, U, BIND | CHOWN | KILL, BIND | CHOWN | KILL,
	  BIND | CHOWN | KILL, BIND | CHOWN | KILL, 0 },
	{ "v1 clears several ambient bits", FC "v1_raw_ep", { U, 0, BIND | CHOWN }, {}, 0, U,
	  RAW, RAW, BIND | CHOWN, 0, 1 },
	{ "root with an ambient set, no xattr (6.1)", FC "plain", { 0, 0, BIND }, {}, 0, 0,
	  FULL, FULL, BIND, BIND, 0 },
	{ "root with an ambient set, v1: only the file's sets", FC "v1_raw_ep",
	  { 0, 0, BIND | CHOWN }, {}, 0, 0, RAW, RAW, BIND | CHOWN, 0, 0 },

	/* values that are not legacy-tagged keep 6.1's behaviour */
	{ "ext4, 6.1 v2 value, uid 1000: 6.1's rules", IMG "v2_raw", { U }, {}, 0, U,
	  RAW, RAW, 0, 0, 1 },
	{ "ext4, 6.1 v2 value, uid 0: root keeps everything (6.1)", IMG "v2_raw", { 0 }, {},
	  0, 0, FULL, FULL, 0, 0, 0 },
	{ "ext4, 6.1 v3 value (rootid 0), uid 1000: 6.1's rules", IMG "v3ns_raw", { U }, {},
	  0, U, RAW, RAW, 0, 0, 1 },
	{ "exec=0: a 6.1 v2 value still applies", IMG "v2_raw", { U }, { .exec_off = 1 },
	  0, U, RAW, RAW, 0, 0, 1 },
	{ "ext4, 6.1 v2 value, bset without cap_net_raw: EPERM (6.1), uid 1000", IMG "v2_raw",
	  { U, .bset_drop = RAW }, {}, EPERM },
	{ "ext4, 6.1 v2 value, bset without cap_net_raw: EPERM (6.1), uid 0", IMG "v2_raw",
	  { 0, .bset_drop = RAW }, {}, EPERM },
	{ "ext4, 6.1 v2 value naming cap_bpf (fP) and cap 40 (fI), uid 1000: 6.1's rules",
	  IMG "v2_high", { U }, {}, 0, U, BPF, BPF, 0, 0, 1 },
	{ "ext4, 6.1 v2 value naming cap_bpf (fP) and cap 40 (fI), uid 1000, pI cap 40: "
	  "fI & pI", IMG "v2_high", { U, LAST }, {}, 0, U, BPF | LAST, BPF | LAST, LAST, 0, 1 },
	{ "ext4, 6.1 v2 value naming cap_bpf, bset without cap_bpf: EPERM (6.1), uid 1000",
	  IMG "v2_high", { U, .bset_drop = BPF }, {}, EPERM },
	{ "setuid-root file with a 6.1 v2 value, uid 1000: the file's sets, not root's (6.1)",
	  IMG "suid_v2_raw", { U }, {}, 0, 0, RAW, RAW, 0, 0, 1 },
	{ "setuid-root file with a 6.1 v2 value, uid 0: root keeps everything (6.1)",
	  IMG "suid_v2_raw", { 0 }, {}, 0, 0, FULL, FULL, 0, 0, 0 },
	{ "ext4, 6.1 v3 value with rootid 1000: ignored, uid 1000 (6.1)", IMG "v3ns_rootid",
	  { U }, {}, 0, U, 0, 0, 0, 0, 0 },
	{ "ext4, 6.1 v3 value with rootid 1000: ignored, uid 0 (6.1)", IMG "v3ns_rootid",
	  { 0 }, {}, 0, 0, FULL, FULL, 0, 0, 0 },
	{ "ambient set, setgid file, no xattr (6.1): pA cleared", FC "sgid_plain",
	  { U, 0, BIND }, {}, 0, U, 0, 0, BIND, 0, 1, G, 1 },
	{ "ambient set, 6.1 v2 value, uid 1000 (6.1): pA cleared", IMG "v2_raw",
	  { U, 0, BIND }, {}, 0, U, RAW, RAW, BIND, 0, 1 },
	{ "bset without cap_net_raw, pI cap_net_raw, uid 0, no xattr (6.1): pP' = bset | pI",
	  FC "plain", { 0, RAW, .bset_drop = RAW }, {}, 0, 0, FULL, FULL, RAW, 0, 0 },
	/* no xattr support is no attribute, not a read error */
	{ "ramfs (no xattr support), uid 1000: 6.1 user", FR "plain", { U }, {}, 0, U,
	  0, 0, 0, 0, 0 },
	{ "ramfs (no xattr support), uid 0: 6.1 root", FR "plain", { 0 }, {}, 0, 0,
	  FULL, FULL, 0, 0, 0 },
	{ "no_new_privs: setgid file with v1, uid 0: not setid, AT_SECURE 0", FC "sgid_v1",
	  { 0, .nnp = 1 }, {}, 0, 0, RAW, RAW, 0, 0, 0, 0, 1 },
	{ "no_new_privs: setuid-root file, no xattr, uid 1000 (6.1): not setid", FC "suid_plain",
	  { U, .nnp = 1 }, {}, 0, U, 0, 0, 0, 0, 0 },
	{ "shared fs, uid 0: setuid-1000 file with v1 keeps euid 1000 (CAP_SETUID)",
	  FC "suid_u_v1", { 0, .shared_fs = 1 }, {}, 0, U, RAW, RAW, 0, 0, 1 },
	{ "ext4, unknown tag: EINVAL (6.1), uid 1000", IMG "unknown_tag", { U }, {}, EINVAL },
	{ "ext4, unknown tag: EINVAL (6.1), uid 0", IMG "unknown_tag", { 0 }, {}, EINVAL },
	{ "ext4, 1-byte value: EINVAL (6.1)", IMG "short_1", { U }, {}, EINVAL },
	{ "ext4, 2-byte value: EINVAL (6.1)", IMG "short_2", { U }, {}, EINVAL },
	{ "ext4, 3-byte value: EINVAL (6.1)", IMG "short_3", { 0 }, {}, EINVAL },
	{ "exec=0: a 1-byte value is still EINVAL (6.1)", IMG "short_1", { U },
	  { .exec_off = 1 }, EINVAL },
	/* chains: the exec decided from sets an earlier exec computed */
	{ "chain: capped root (fP raw+bind), no_new_privs, exec of a raw file: no downgrade",
	  FC "v1_raw_ep", { 0 }, {}, 0, 0, RAW, RAW, 0, 0, 0,
	  .chain = CHAIN(FC "v1_super", "--nnp", "exec") },
	{ "chain: capped root (fP raw), no_new_privs, exec of a raw+bind file: downgraded to raw",
	  FC "v1_super", { 0 }, {}, 0, 0, RAW, RAW, 0, 0, 0,
	  .chain = CHAIN(FC "v1_raw_ep", "--nnp", "exec") },
	{ "chain: capped root, no_new_privs, exec of a plain file: stays capped (6.1)",
	  FC "plain", { 0 }, {}, 0, 0, RAW, RAW, 0, 0, 0,
	  .chain = CHAIN(FC "v1_raw_ep", "--nnp", "exec") },
	{ "chain: capped root, exec of a plain file: root again (6.1)",
	  FC "plain", { 0 }, {}, 0, 0, FULL, FULL, 0, 0, 0,
	  .chain = CHAIN(FC "v1_raw_ep", "exec") },
	{ "chain: capped tracer (no cap_sys_ptrace) traces root's exec of a plain file: downgraded",
	  FC "plain", { 0 }, {}, 0, 0, RAW, RAW, 0, 0, 0,
	  .chain = CHAIN(FC "v1_raw_ep", "trace") },
	{ "chain: capped tracer traces root's exec of a raw+bind file: downgraded to raw",
	  FC "v1_super", { 0 }, {}, 0, 0, RAW, RAW, 0, 0, 0,
	  .chain = CHAIN(FC "v1_raw_ep", "trace") },
	/* the downgrade's id fallback asks the capped sets for CAP_SETUID */
	{ "chain: capped tracer traces a capped root's exec of a setuid-1000 v1 file: euid falls "
	  "back to 0 (no cap_setuid)", FC "suid_u_v1", { 0 }, {}, 0, 0, RAW, RAW, 0, 0, 1,
	  .chain = CHAIN(FC "v1_raw_ep", "trace") },
	{ "chain: capped root cannot add cap_sys_admin to pI or pA; exec of a plain file: root",
	  FC "plain", { 0 }, {}, 0, 0, FULL, FULL, 0, 0, 0,
	  .chain = CHAIN(FC "v1_raw_ep", "--ambient", "21", "exec") },
	{ "chain: root raises cap_net_raw in pA, then a plain file: pA kept (6.1)",
	  FC "plain", { 0 }, {}, 0, 0, FULL, FULL, RAW, RAW, 0,
	  .chain = CHAIN(FC "plain", "--ambient", "13", "exec") },
	{ "chain: root raises cap_net_raw in pA, then a v1 file: pA cleared, pI kept",
	  FC "v1_inh", { 0 }, {}, 0, 0, RAW, RAW, RAW, 0, 0,
	  .chain = CHAIN(FC "plain", "--ambient", "13", "exec") },
	{ "chain: root becomes uid 1000, then a v1 file: the file's sets, AT_SECURE",
	  FC "v1_raw_ep", { 0 }, {}, 0, U, RAW, RAW, 0, 0, 1, U, 1,
	  .chain = CHAIN(FC "plain", "--setuid", "1000", "exec") },
	{ "chain: uid 1000's namespace root runs a v1 file: the file's sets, root there: no AT_SECURE",
	  FC "v1_raw_ep", { U }, {}, 0, 0, RAW, RAW, 0, 0, 0, 0, 1,
	  .chain = CHAIN(FC "plain", "--userns", "exec") },
	{ "chain: root's own namespace root runs a v1 file: the file's sets, no AT_SECURE",
	  FC "v1_raw_ep", { 0 }, {}, 0, 0, RAW, RAW, 0, 0, 0, 0, 1,
	  .chain = CHAIN(FC "plain", "--userns", "exec") },
	{ "chain: capped root cannot set SECURE_NOROOT (no cap_setpcap); a plain file: root",
	  FC "plain", { 0 }, {}, 0, 0, FULL, FULL, 0, 0, 0,
	  .chain = CHAIN(FC "v1_raw_ep", "--securebits", "1", "exec") },
};

struct pair_row {
	const char *name;
	const char *target;		/* runs "pause"; with thread, "thread" */
	uid_t tuid;
	const char *sender;
	uid_t suid;
	const char *op;			/* NULL: kill with sig; else nice, sched, ioprio,
					 * prlimit or sigio on the target */
	int sig;
	struct switches sw;
	int want_errno;
	unsigned int uid_check:1;	/* refused before any LSM hook runs */
	/* choices beyond one process signalling another */
	unsigned int sender_userns:1;	/* the sender acts from its own unshare -Ur */
	unsigned int target_userns:1;	/* the target waits in its own unshare -Ur */
	unsigned int target_nested:1;	/* ... made under a namespace root made for
					 * uid 1000 (run the target as root) */
	unsigned int session:1;		/* the sender starts its own session */
	unsigned int pp_only:1;		/* the sender empties pE (capset) first */
	unsigned int thread:1;		/* the target's main thread tgkills a sibling */
	unsigned int thread_drop:1;	/* ... after emptying its own sets */
	unsigned int group:1;		/* kill(-pgid): the target leads, member joins */
	unsigned int seteuid:1;		/* the sender's euid is seuid (real: suid) */
	uid_t seuid;
	const char *member;
	uid_t muid;
	int want_target_alive, want_member_alive;	/* group: after the signal */
	/* the sender's programs from the first (CHAIN(FILE, options...,
	 * "exec", FILE2, ...)), run as they are on both paths: a chain's
	 * state, not a cast (sender is then unused) */
	const char *const *sender_chain;
};

/*
 * security.* writes and removals (SEMANTICS 1 and 6), each followed by
 * root running the file: what its value now decides. The actor's chain
 * (CHAIN(FILE, options...)) runs before the op, from its first program.
 */
struct xattr_row {
	const char *name;
	struct xattr_spec x;
	int want_errno;			/* of the op */
	int then_errno;			/* of root's exec of the file after */
	__u64 then_p;			/* root's pP after that exec */
};

#define NS_ROOT CHAIN(FC "plain", "--userns")
#define CAPPED_ROOT CHAIN(FC "v1_raw_ep")

static const struct xattr_row xattr_rows[] = {
	{ "uid 1000 removes root's legacy value: EPERM",
	  { "remove", NULL, "good_v1", 0, { U } }, EPERM, 0, RAW },
	{ "uid 1000 empties root's legacy value: EPERM",
	  { "empty", NULL, "good_v1", 0, { U } }, EPERM, 0, RAW },
	{ "uid 1000 writes a 6.1 v2 value over root's legacy value: EPERM",
	  { "set", "v2_raw", "good_v1", 0, { U } }, EPERM, 0, RAW },
	{ "uid 1000 empties the legacy value of its own file: EPERM",
	  { "empty", NULL, "good_v1", U, { U } }, EPERM, 0, RAW },
	{ "uid 1000 writes another security.* name on its own file: EPERM",
	  { "set-other", NULL, NULL, U, { U } }, EPERM, 0, FULL },
	{ "root writes a v1 value",
	  { "set", "good_v1", NULL, 0, { 0 } }, 0, 0, RAW },
	{ "root removes a legacy value",
	  { "remove", NULL, "good_v1", 0, { 0 } }, 0, 0, FULL },
	{ "root writes a malformed legacy value: EINVAL",
	  { "set", "m_v1_size15", NULL, 0, { 0 } }, EINVAL, 0, FULL },
	{ "capped root (cap_net_raw) removes a legacy value: EPERM",
	  { "remove", NULL, "good_v1", 0, { 0 }, CAPPED_ROOT }, EPERM, 0, RAW },
	{ "capped root empties a 6.1 v2 value: EPERM",
	  { "empty", NULL, "v2_raw", 0, { 0 }, CAPPED_ROOT }, EPERM, 0, FULL },
	{ "capped root with cap_setfcap removes a legacy value",
	  { "remove", NULL, "good_v1", 0, { 0 }, CHAIN(FC "v1_setfcap") }, 0, 0, FULL },
	{ "uid 1000 holding only cap_setfcap removes root's legacy value",
	  { "remove", NULL, "good_v1", 0, { U, .pa = SETFCAP } }, 0, 0, FULL },
	{ "uid 1000 holding only cap_setfcap empties it: the file no longer runs (6.1: EINVAL)",
	  { "empty", NULL, "good_v1", 0, { U, .pa = SETFCAP } }, 0, EINVAL, 0 },
	{ "uid 1000 holding only cap_sys_admin writes another security.* name",
	  { "set-other", NULL, NULL, 0, { U, .pa = SYSADMIN } }, 0, 0, FULL },
	{ "uid 1000 holding only cap_sys_admin removes root's legacy value: EPERM",
	  { "remove", NULL, "good_v1", 0, { U, .pa = SYSADMIN } }, EPERM, 0, RAW },
	{ "a namespace's root writes a legacy value on its own file: EPERM (no root id)",
	  { "set", "good_v1", NULL, U, { U }, NS_ROOT }, EPERM, 0, FULL },
	{ "a namespace's root writes a 6.1 v2 value on its own file: root id 1000 (6.1)",
	  { "set", "v2_raw", NULL, U, { U }, NS_ROOT }, 0, 0, FULL },
	{ "a namespace's root removes the legacy value of its own file (cap_setfcap there)",
	  { "remove", NULL, "good_v1", U, { U }, NS_ROOT }, 0, 0, FULL },
	{ "a namespace's root removes root's legacy value: EPERM",
	  { "remove", NULL, "good_v1", 0, { U }, NS_ROOT }, EPERM, 0, RAW },
	{ "root in a namespace of its own writes a legacy value: EPERM (no root id)",
	  { "set", "good_v1", NULL, 0, { 0 }, NS_ROOT }, EPERM, 0, FULL },
};

/* What the BPF ceiling takes again of 6.1's checks on live sets
 * (caps_event.h), from the state a chain left */
struct caps_row {
	const char *name;
	struct caps_spec k;
	int want_errno;
};

static const struct caps_row caps_rows[] = {
	{ "capped root (raw+bind) adds cap_sys_admin to pI: EPERM",
	  { "inherit", CAP_SYS_ADMIN, .c = { 0 }, .chain = CHAIN(FC "v1_super") }, EPERM },
	{ "capped root adds cap_net_raw, which it holds, to pI",
	  { "inherit", CAP_NET_RAW, .c = { 0 }, .chain = CHAIN(FC "v1_super") }, 0 },
	{ "capped root raises cap_net_raw in pA",
	  { "ambient", CAP_NET_RAW, .c = { 0 }, .chain = CHAIN(FC "v1_super") }, 0 },
	{ "capped root raises cap_sys_admin in pA: EPERM",
	  { "ambient", CAP_SYS_ADMIN, .c = { 0 }, .chain = CHAIN(FC "v1_super") }, EPERM },
	{ "root puts cap_sys_admin in pI, runs a raw file, raises it in pA: EPERM (not in pP)",
	  { "ambient", CAP_SYS_ADMIN, .c = { 0 },
	    .chain = CHAIN(FC "plain", "--inherit", "21", "exec", FC "v1_raw_ep") }, EPERM },
	{ "capped root sets SECURE_NOROOT: EPERM (no cap_setpcap)",
	  { "securebits", SECBIT_NOROOT, .c = { 0 }, .chain = CHAIN(FC "v1_raw_ep") }, EPERM },
	{ "root sets SECURE_NOROOT",
	  { "securebits", SECBIT_NOROOT, .c = { 0 } }, 0 },
	{ "capped root (raw) seizes a root process: EPERM (the target's pP is not within raw)",
	  { "ptrace", 0, FC "plain", 0, { 0 }, CHAIN(FC "v1_raw_ep") }, EPERM },
	{ "capped root (raw+bind) seizes a root process capped to raw",
	  { "ptrace", 0, FC "v1_raw_ep", 0, { 0 }, CHAIN(FC "v1_super") }, 0 },
	{ "root seizes a capped root process",
	  { "ptrace", 0, FC "v1_raw_ep", 0, { 0 } }, 0 },
	/* an attach compares permitted sets, not effective ones */
	{ "capped root (pE raw, pP raw+bind) seizes a root process capped to raw+bind",
	  { "ptrace", 0, FC "v1_super", 0, { 0 }, CHAIN(FC "v1_sub") }, 0 },
	/* an exec that grew pP leaves the process non-dumpable (commit_creds()):
	 * its own uid then needs CAP_SYS_PTRACE, though its pP is within */
	{ "uid 1000 (raw+bind) seizes uid 1000 whose raw file grew its pP: EPERM (not dumpable)",
	  { "ptrace", 0, FC "v1_raw_ep", U, { U }, CHAIN(FC "v1_super") }, EPERM },
	{ "uid 1000 (raw+bind) seizes uid 1000 whose fP-only file grew its pP: EPERM (not "
	  "dumpable)", { "ptrace", 0, FC "v1_p_only", U, { U }, CHAIN(FC "v1_super") }, EPERM },
	{ "uid 1000 (raw+bind) seizes uid 1000 running a plain file",
	  { "ptrace", 0, FC "plain", U, { U }, CHAIN(FC "v1_super") }, 0 },
	/* PTRACE_TRACEME: the child's pP within its parent's, or the parent's
	 * CAP_SYS_PTRACE (cap_ptrace_traceme()) */
	{ "capped root parent (raw+bind), its child runs a raw file: PTRACE_TRACEME",
	  { "traceme", 0, FC "v1_raw_ep", .c = { 0 }, .chain = CHAIN(FC "v1_super") }, 0 },
	{ "capped root parent (raw), its child runs a plain file, root again: TRACEME EPERM",
	  { "traceme", 0, FC "plain", .c = { 0 }, .chain = CHAIN(FC "v1_raw_ep") }, EPERM },
	{ "capped root parent (raw), its child runs a raw+bind file: TRACEME EPERM",
	  { "traceme", 0, FC "v1_super", .c = { 0 }, .chain = CHAIN(FC "v1_raw_ep") }, EPERM },
	{ "root parent, its child runs a raw file: PTRACE_TRACEME",
	  { "traceme", 0, FC "v1_raw_ep", .c = { 0 } }, 0 },
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
	{ "ioprio_set with CAP_SYS_NICE: allowed", FC "v1_raw_ep", U,
	  FC "v1_nice", U, "ioprio", 0, {}, 0 },
	{ "sched_setscheduler with CAP_SYS_NICE: allowed", FC "v1_raw_ep", U,
	  FC "v1_nice", U, "sched", 0, {}, 0 },
	{ "setpriority from a superset: allowed", FC "v1_raw_ep", U,
	  FC "v1_super", U, "nice", 0, {}, 0 },
	{ "setpriority on uncapped uid 1000: allowed", FC "plain", U,
	  FC "plain", U, "nice", 0, {}, 0 },
	/* the target's permitted set decides, not its effective set */
	{ "uid 1000 to a target whose caps are in pP only (fE empty): EPERM", FC "v1_p_only", U,
	  FC "plain", U, NULL, SIGTERM, {}, EPERM },
	{ "setpriority on a target whose caps are in pP only (fE empty): EPERM",
	  FC "v1_p_only", U, FC "plain", U, "nice", 0, {}, EPERM },
	/* signal 0 reaches the hook like any signal */
	{ "signal 0 to capped uid 1000: EPERM", FC "v1_raw_ep", U, FC "plain", U, NULL, 0, {},
	  EPERM },
	{ "signal 0 to capped uid 1000, kill=0: allowed", FC "v1_raw_ep", U, FC "plain", U,
	  NULL, 0, { .kill_off = 1 }, 0 },
	/* no signal is exempt: those a process cannot catch neither */
	{ "SIGKILL to capped uid 1000: EPERM", FC "v1_raw_ep", U, FC "plain", U, NULL, SIGKILL,
	  {}, EPERM },
	{ "SIGSTOP to capped uid 1000: EPERM", FC "v1_raw_ep", U, FC "plain", U, NULL, SIGSTOP,
	  {}, EPERM },
	/* kernel.fcaps.kill is section 3's switch: scheduling keeps 6.1's rule */
	{ "setpriority on capped uid 1000, kill=0: EPERM (the switch is for signals)",
	  FC "v1_raw_ep", U, FC "plain", U, "nice", 0, { .kill_off = 1 }, EPERM },
	{ "ioprio_set on capped uid 1000, kill=0: EPERM", FC "v1_raw_ep", U, FC "plain", U,
	  "ioprio", 0, { .kill_off = 1 }, EPERM },

	/* a capability in pP but not in pE is not held */
	{ "uid 1000 sender with CAP_KILL in pP only: EPERM", FC "v1_raw_ep", U,
	  FC "v1_kill", U, NULL, SIGTERM, {}, EPERM, .pp_only = 1 },
	{ "uid 1000 sender with a superset, pE emptied: allowed (pP decides)", FC "v1_raw_ep", U,
	  FC "v1_super", U, NULL, SIGTERM, {}, 0, .pp_only = 1 },
	{ "setpriority with CAP_SYS_NICE in pP only: EPERM", FC "v1_raw_ep", U,
	  FC "v1_nice", U, "nice", 0, {}, EPERM, .pp_only = 1 },
	{ "ioprio_set with CAP_SYS_NICE in pP only: EPERM", FC "v1_raw_ep", U,
	  FC "v1_nice", U, "ioprio", 0, {}, EPERM, .pp_only = 1 },
	{ "setpriority from a superset, pE emptied: allowed (pP decides)", FC "v1_raw_ep", U,
	  FC "v1_super", U, "nice", 0, {}, 0, .pp_only = 1 },

	/* user namespaces: permitted sets compared within one only (signals) */
	{ "sender inside unshare -Ur to capped uid 1000: EPERM", FC "v1_raw_ep", U,
	  FC "plain", U, NULL, SIGTERM, {}, EPERM, .sender_userns = 1 },
	{ "sender inside unshare -Ur to uncapped uid 1000: EPERM (CAP_KILL only in its own "
	  "namespace)", FC "plain", U, FC "plain", U, NULL, SIGTERM, {}, EPERM,
	  .sender_userns = 1 },
	{ "sender inside unshare -Ur to capped uid 1000, kill=0: allowed", FC "v1_raw_ep", U,
	  FC "plain", U, NULL, SIGTERM, { .kill_off = 1 }, 0, .sender_userns = 1 },
	{ "setpriority from inside unshare -Ur on capped uid 1000: allowed (6.1 compares the "
	  "raw sets)", FC "v1_raw_ep", U, FC "plain", U, "nice", 0, {}, 0, .sender_userns = 1 },
	{ "target in its own unshare -Ur, uid 1000 sender without a superset: allowed (the "
	  "owner holds CAP_KILL there)", FC "v1_raw_ep", U, FC "plain", U, NULL, SIGTERM, {}, 0,
	  .target_userns = 1 },
	{ "target in its own unshare -Ur, sender with a superset: allowed", FC "v1_raw_ep", U,
	  FC "v1_super", U, NULL, SIGTERM, {}, 0, .target_userns = 1 },
	{ "target in its own unshare -Ur, sender ruid 1000 euid 1001 (not the owner): EPERM",
	  FC "v1_raw_ep", U, FC "plain", U, NULL, SIGTERM, {}, EPERM, .target_userns = 1,
	  .seteuid = 1, .seuid = 1001 },
	{ "sender ruid 1000 euid 1001 to uncapped uid 1000 in the same namespace: allowed",
	  FC "plain", U, FC "plain", U, NULL, SIGTERM, {}, 0, .seteuid = 1, .seuid = 1001 },
	{ "setpriority on a target in its own unshare -Ur, uid 1000 sender: allowed",
	  FC "v1_raw_ep", U, FC "plain", U, "nice", 0, {}, 0, .target_userns = 1 },
	/* the owner of a namespace holds CAP_KILL there only if its parent is
	 * the owner's own namespace: not when the parent is one root made */
	{ "target in a namespace uid 1000 owns under one root owns, uid 1000 sender: EPERM",
	  FC "plain", 0, FC "plain", U, NULL, SIGTERM, {}, EPERM, .target_nested = 1 },
	{ "target in a namespace uid 1000 owns under one root owns, kill=0: allowed",
	  FC "plain", 0, FC "plain", U, NULL, SIGTERM, { .kill_off = 1 }, 0, .target_nested = 1 },
	{ "setpriority on a target in a namespace uid 1000 owns under one root owns: EPERM",
	  FC "plain", 0, FC "plain", U, "nice", 0, {}, EPERM, .target_nested = 1 },
	{ "SIGIO to a target in a namespace uid 1000 owns under one root owns: dropped",
	  FC "plain", 0, FC "plain", U, "sigio", 0, {}, EPERM, .target_nested = 1 },
	{ "prlimit on a target in a namespace uid 1000 owns under one root owns: EPERM",
	  FC "plain", 0, FC "plain", U, "prlimit", 0, {}, EPERM, .target_nested = 1 },
	{ "SIGIO to a target in such a namespace, kill=0: delivered",
	  FC "plain", 0, FC "plain", U, "sigio", 0, { .kill_off = 1 }, 0, .target_nested = 1 },
	{ "prlimit on a target in such a namespace, kill=0: allowed",
	  FC "plain", 0, FC "plain", U, "prlimit", 0, { .kill_off = 1 }, 0, .target_nested = 1 },

	/* SEMANTICS 3's other ways to signal: another's limits written with
	 * prlimit (the target's credentials alone reach the hook), and SIGIO
	 * aimed with F_SETOWN (the write succeeds; a refusal drops it) */
	{ "prlimit on capped uid 1000: EPERM", FC "v1_raw_ep", U, FC "plain", U,
	  "prlimit", 0, {}, EPERM },
	{ "prlimit on uncapped uid 1000: allowed", FC "plain", U, FC "plain", U,
	  "prlimit", 0, {}, 0 },
	{ "prlimit with CAP_KILL: allowed", FC "v1_raw_ep", U, FC "v1_kill", U,
	  "prlimit", 0, {}, 0 },
	{ "prlimit on capped uid 1000, kill=0: allowed", FC "v1_raw_ep", U, FC "plain", U,
	  "prlimit", 0, { .kill_off = 1 }, 0 },
	{ "prlimit from inside unshare -Ur on uncapped uid 1000: EPERM", FC "plain", U,
	  FC "plain", U, "prlimit", 0, {}, EPERM, .sender_userns = 1 },
	{ "prlimit on root: EPERM by the uid check", FC "plain", 0, FC "plain", U,
	  "prlimit", 0, { .kill_off = 1 }, EPERM, 1 },
	{ "SIGIO to capped uid 1000: dropped", FC "v1_raw_ep", U, FC "plain", U,
	  "sigio", 0, {}, EPERM },
	{ "SIGIO to uncapped uid 1000: delivered", FC "plain", U, FC "plain", U,
	  "sigio", 0, {}, 0 },
	{ "SIGIO with CAP_KILL: delivered", FC "v1_raw_ep", U, FC "v1_kill", U,
	  "sigio", 0, {}, 0 },
	{ "SIGIO to capped uid 1000, kill=0: delivered", FC "v1_raw_ep", U, FC "plain", U,
	  "sigio", 0, { .kill_off = 1 }, 0 },
	{ "SIGIO aimed from inside unshare -Ur at uncapped uid 1000: dropped", FC "plain", U,
	  FC "plain", U, "sigio", 0, {}, EPERM, .sender_userns = 1 },
	{ "SIGIO with CAP_KILL in pP only (pE emptied before F_SETOWN): dropped", FC "v1_raw_ep",
	  U, FC "v1_kill", U, "sigio", 0, {}, EPERM, .pp_only = 1 },
	{ "SIGIO to a target in its own unshare -Ur, uid 1000 owner without a superset: "
	  "delivered (the owner holds CAP_KILL there)", FC "v1_raw_ep", U, FC "plain", U,
	  "sigio", 0, {}, 0, .target_userns = 1 },

	/* process groups: the hook decides per member */
	{ "kill(-pgid), a capped and an uncapped member: 0, the capped one survives",
	  FC "v1_raw_ep", U, FC "plain", U, NULL, SIGTERM, {}, 0, .group = 1,
	  .member = FC "plain", .muid = U, .want_target_alive = 1, .want_member_alive = 0 },
	{ "kill(-pgid), both members capped: EPERM", FC "v1_raw_ep", U, FC "plain", U, NULL,
	  SIGTERM, {}, EPERM, .group = 1, .member = FC "v1_raw_ep", .muid = U,
	  .want_target_alive = 1, .want_member_alive = 1 },
	{ "kill(-pgid), a capped and an uncapped member, kill=0: both signalled",
	  FC "v1_raw_ep", U, FC "plain", U, NULL, SIGTERM, { .kill_off = 1 }, 0, .group = 1,
	  .member = FC "plain", .muid = U, .want_target_alive = 0, .want_member_alive = 0 },

	/* SIGCONT from another session: no exemption from the uid check */
	{ "SIGCONT from another session to capped uid 1000: EPERM", FC "v1_raw_ep", U,
	  FC "plain", U, NULL, SIGCONT, {}, EPERM, .session = 1 },
	{ "SIGCONT from another session to uncapped root, kill=0: EPERM by the uid check",
	  FC "plain", 0, FC "plain", U, NULL, SIGCONT, { .kill_off = 1 }, EPERM, 1,
	  .session = 1 },
	{ "SIGCONT from another session to capped root: EPERM by the uid check",
	  FC "v1_raw_ep", 0, FC "plain", U, NULL, SIGCONT, {}, EPERM, 1, .session = 1 },

	/* within a thread group: no uid check, the hook all the same */
	{ "tgkill to a sibling thread after the sending thread emptied its sets: EPERM (no "
	  "uid check)", FC "v1_raw_ep", U, NULL, U, NULL, SIGUSR1, {}, EPERM, .thread = 1,
	  .thread_drop = 1 },
	{ "tgkill to a sibling thread, same credentials: allowed", FC "v1_raw_ep", U, NULL, U,
	  NULL, SIGUSR1, {}, 0, .thread = 1 },
	{ "tgkill to a sibling thread after emptying the sending thread's sets, kill=0: "
	  "allowed", FC "v1_raw_ep", U, NULL, U, NULL, SIGUSR1, { .kill_off = 1 }, 0,
	  .thread = 1, .thread_drop = 1 },
	{ "root: tgkill to a sibling thread after emptying the sending thread's sets: EPERM",
	  FC "plain", 0, NULL, 0, NULL, SIGUSR1, {}, EPERM, .thread = 1, .thread_drop = 1 },
	/* chain senders: their sets are what a legacy exec left them (sender
	 * names the file that capped them), on both paths alike */
	{ "capped root (raw) signals a root process: EPERM", FC "plain", 0, FC "v1_raw_ep", 0,
	  NULL, SIGTERM, {}, EPERM, .sender_chain = CHAIN(FC "v1_raw_ep") },
	{ "capped root with cap_kill signals a root process: allowed", FC "plain", 0,
	  FC "v1_kill", 0, NULL, SIGTERM, {}, 0, .sender_chain = CHAIN(FC "v1_kill") },
	{ "capped root (raw) aims SIGIO at a root process: dropped", FC "plain", 0,
	  FC "v1_raw_ep", 0, "sigio", 0, {}, EPERM, .sender_chain = CHAIN(FC "v1_raw_ep") },
	{ "capped root, no_new_privs, a plain file: still capped, renices root: EPERM",
	  FC "plain", 0, FC "v1_raw_ep", 0, "nice", 0, {}, EPERM,
	  .sender_chain = CHAIN(FC "v1_raw_ep", "--nnp", "exec", FC "plain") },
	{ "capped root (raw+bind) signals a root process capped to raw: allowed",
	  FC "v1_raw_ep", 0, FC "v1_super", 0, NULL, SIGTERM, {}, 0,
	  .sender_chain = CHAIN(FC "v1_super") },
};

/*
 * Random events a campaign reduced (tests/diff/reduce.py), in their text
 * form (event_spec.h): each runs as "reduced: TEXT", a row like the others.
 * A reduction's "catalogue:" line is the string to add here.
 */
static const char *const reduced_rows[] = {
	/* NO_CAP_KILL: the kill rule of the signals that end the pair's
	 * processes, the target in uid 1000's own namespace */
	"sched /tmp/fc/plain uid 1000 -> /tmp/fc/plain uid 1000 userns",
	/* swap-ptrace-narrowed: seeds 11 and 12 of a 16-seed campaign, a
	 * root target a legacy file narrowed within the tracer's pP */
	"caps ptrace /tmp/fc/v1_raw_ep by uid 0: /tmp/fc/plain --securebits 1 exec /mnt/v2_raw",
	/* swap-chain-drift: reduced by hand from seed 3's random#8317 at
	 * 10,000 events (a setuid root's chain under no_new_privs instead of
	 * its namespace and traced execs): the kernel path holds CAP_NET_RAW
	 * at the last exec, BPF's run not, so their predictions part */
	"chain uid 1000: /tmp/fc/suid_plain --nnp exec /tmp/fc/v1_raw_ep exec /tmp/fc/v3_high "
	"exec /tmp/fc/v1_raw_ep",
	/* CEILING_TIGHT: a capped root (pE empty, pP not) whose next exec
	 * keeps pP' within the old pP: a ceiling that narrows the old pP too
	 * far looks like swap-chain-drift but for BPF's live pP */
	"chain uid 0: /tmp/fc/v1_p_only --nnp exec /tmp/fc/v1_raw_ep",
};

static inline const struct fixture *fixture(const char *path)
{
	for (size_t n = 0; n < NFIXTURES; n++)
		if (!strcmp(fixtures[n].path, path))
			return &fixtures[n];
	return NULL;
}

static inline int prefixed(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* What the workload reports about a file it executes. */
struct file_info {
	__u32 tag;			/* a legacy tag, or 0 */
	const char *form;		/* none|legacy|malformed|v2|v3|unknown|short */
	int nosuid;			/* on a nosuid mount */
	const char *interp;		/* a script's interpreter, or NULL */
};

static inline void file_info(const char *path, struct file_info *fi)
{
	const struct fixture *f = fixture(path);
	const struct fcaps_test_value *v = NULL;

	*fi = (struct file_info){ 0, "none", prefixed(path, FCN) || prefixed(path, IMGN) };
	if (prefixed(path, IMG))
		v = fcaps_test_value(path + strlen(IMG));
	else if (prefixed(path, IMGN))
		v = fcaps_test_value(path + strlen(IMGN));
	if (f) {
		fi->tag = f->tag;
		fi->form = f->tag ? "legacy" : "none";
		fi->interp = f->interp;
	} else if (v) {
		fi->form = fcaps_test_kind_name(v->kind);
		if (fcaps_test_kind_is_legacy(v->kind))
			fi->tag = fcaps_le32(v->bytes);
	}
}

/* The kernel applies @f's legacy value when @f is executed under @sw. */
static inline int fixture_grants(const struct fixture *f, struct switches sw)
{
	return f && f->tag && !sw.exec_off && (!prefixed(f->path, FCN) || sw.nosuid_ignore);
}

/*
 * An actor running @file as @uid. With @bpf (a path that cannot grant),
 * a fixture whose value the kernel would apply is played by the plain
 * probe with the same live sets (actor_by_ambient). Actors must have
 * pI = 0, the full bounding set and no setid exec, as the kernel's exec
 * then gives exactly fP and fE.
 */
static inline struct actor cast(const char *file, uid_t uid, int bpf, struct switches sw)
{
	const struct fixture *f = fixture(file);
	struct actor a = { file, { uid } };

	if (bpf && fixture_grants(f, sw))
		actor_by_ambient(&a, FC "plain", f->e, f->p);
	return a;
}

/* The processes of a pair row (not thread rows), @bpf as for cast(). */
static inline struct pair_spec pair_spec_of(const struct pair_row *r, int bpf)
{
	struct pair_spec s = { .op = r->op, .sig = r->sig, .group = r->group };

	s.target = cast(r->target, r->tuid, bpf, r->sw);
	s.target.userns = r->target_userns;
	s.target.userns_nested = r->target_nested;
	s.target.c.newpgrp = r->group;
	if (r->group)
		s.member = cast(r->member, r->muid, bpf, r->sw);
	s.sender = cast(r->sender, r->suid, bpf, r->sw);
	if (r->sender_chain) {
		s.sender = (struct actor){ r->sender_chain[0], { r->suid } };
		s.sender.chain = r->sender_chain + 1;
	}
	s.sender.userns = r->sender_userns;
	s.sender.setsid = r->session;
	s.sender.pp_only = r->pp_only;
	if (r->seteuid) {
		s.sender.c.seteuid = 1;
		s.sender.c.euid = r->seuid;
	}
	return s;
}

/*
 * Where the stock kernel's BPF run finds an image file: stock 6.1 fails
 * every exec of a file carrying a legacy value, so that run executes
 * copies on tmpfs (FC "img_NAME", FCN "img_NAME" for the nosuid bind)
 * whose values are only in the policy file.
 */
static inline const char *stock_path(const char *file, char *buf, size_t len)
{
	if (prefixed(file, IMG))
		snprintf(buf, len, FC "img_%s", file + strlen(IMG));
	else if (prefixed(file, IMGN))
		snprintf(buf, len, FCN "img_%s", file + strlen(IMGN));
	else
		return file;
	return buf;
}

static inline int same_mount_source(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/*
 * Create the fixtures; @with_xattrs is 0 where the kernel refuses legacy
 * values (stock: scripts then name the stock_path() copies). Mounts a
 * nosuid tmpfs on FCN, a ramfs (no xattrs at all) on FR, the test image
 * on IMG and binds it nosuid,ro on IMGN (a malformed value cannot be
 * written on tmpfs).
 */
static inline void setup_fixtures(int with_xattrs)
{
	mkdir("/tmp/fc", 0755);
	mkdir("/tmp/fcn", 0755);
	mkdir("/mnt-nosuid", 0755);
	mkdir("/tmp/fcr", 0755);
	if (mount("tmpfs", "/tmp/fcn", "tmpfs", MS_NOSUID, "mode=0755") ||
	    mount("ramfs", "/tmp/fcr", "ramfs", 0, "mode=0755") ||
	    (mount("/dev/vda", "/mnt", "ext4", 0, NULL) && errno != EBUSY)) {
		perror("scenarios: mounting /tmp/fcn, /tmp/fcr and the test image on /mnt");
		exit(1);
	}
	if (!same_mount_source("/mnt", "/mnt-nosuid") &&
	    (mount("/mnt", "/mnt-nosuid", NULL, MS_BIND, NULL) ||
	     mount(NULL, "/mnt-nosuid", NULL, MS_REMOUNT | MS_BIND | MS_NOSUID | MS_RDONLY,
		   NULL))) {
		perror("scenarios: binding the test image nosuid on /mnt-nosuid");
		exit(1);
	}
	for (size_t n = 0; n < NFIXTURES; n++) {
		const struct fixture *f = &fixtures[n];
		struct fcaps_sets sets = { f->e, f->p, f->i };
		__u8 buf[FCAPS_MAX_SIZE];
		char script[160], ibuf[128];
		int rc;

		if (f->interp) {
			int fd = open(f->path, O_CREAT | O_WRONLY | O_TRUNC, 0755);
			const char *interp = with_xattrs ? f->interp :
					     stock_path(f->interp, ibuf, sizeof(ibuf));

			snprintf(script, sizeof(script), "#!%s status\n", interp);
			rc = fd < 0 || write(fd, script, strlen(script)) < 0;
			if (fd >= 0)
				close(fd);
		} else {
			rc = copy_file(PROBE, f->path);
		}
		/* chown first: it clears the setid bits and the value */
		rc = rc || chown(f->path, f->uid, f->gid) || chmod(f->path, f->mode);
		if (!rc && f->tag && with_xattrs)
			rc = setxattr(f->path, FCAPS_XATTR_NAME, buf,
				      fcaps_encode(&sets, f->tag, buf), 0);
		if (rc) {
			perror(f->path);
			exit(1);
		}
	}
}

static inline void teardown_fixtures(void)
{
	umount("/mnt-nosuid");
	umount("/tmp/fcn");
	umount("/tmp/fcr");
}

#endif /* FCAPS_CATALOGUE_H */
