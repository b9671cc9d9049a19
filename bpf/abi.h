/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DOC: the map and record ABI
 *
 * What the BPF programs, fcapsctl and the harness exchange through the
 * maps pinned under FCAPS_PIN_DIR: their sizes, keys and values, the
 * config, the hooks, and the decision record (struct fcaps_decision).
 * Python reads it generated (tests/lib/abi_py.c: build/fcaps_abi.py).
 */
#ifndef FCAPS_ABI_H
#define FCAPS_ABI_H

#include "format.h"

#define FCAPS_PIN_DIR		"/sys/fs/bpf/fcaps"
#define FCAPS_MAX_DECISIONS	65536	/* a power of two: slot = seq & (max - 1) */
#define FCAPS_DECISION_SLOT(seq)	((__u32)((seq) & (FCAPS_MAX_DECISIONS - 1)))
_Static_assert((FCAPS_MAX_DECISIONS & (FCAPS_MAX_DECISIONS - 1)) == 0,
	       "the decision rings are indexed by seq masked to their size");
#define FCAPS_MAX_POLICY	(1 << 20)	/* allocated as used */
#define FCAPS_MAX_TOMBSTONES	65536	/* values removed while a scan runs */

#define FCAPS_MAX_CEILINGS	65536
/* marks (allocated as used): descriptor tables holding fcaps' maps of
 * callers that may not change enforcement (held), user namespaces made by
 * capped creators (ns_marks); load --mark-max sizes both */
#define FCAPS_MAX_MARKS		65536
/* the ceilings' filter (bpf/fcaps.bpf.h): live ceilings by a hash of the key */
#define FCAPS_CEILING_BUCKETS	4096

/*
 * A ceiling's pE and pP by the bucket of its key (bpf/maps.bpf.h,
 * fcaps_ceiling_front): a copy the pair rule reads with loads. seq is odd
 * while a copy is written and grows by 2 at every change of a ceiling of
 * the bucket; a copy counts only while seq equals the valid it was made with.
 */
struct fcaps_ceiling_front {
	__u64 seq;
	__u64 valid;
	__u64 key;
	__u64 pe;
	__u64 pp;
};

/* ceilings[struct cred *]: what the legacy rules would have left it */
struct fcaps_ceiling {
	__u64 pe;			/* capable() refuses anything else */
	__u64 pp;
	__u64 pa;			/* what the kernel path's pA would be */
};

/* policy: a file, as the kernel names it (s_dev encoding, not st_dev) */
struct fcaps_file_key {
	__u32 dev;
	__u32 gen;			/* the policy generation it belongs to */
	__u64 ino;
};

/*
 * policy: the file's security.capability value, kept raw, whatever its
 * format (legacy values get the 2006 rules, others 6.1's).
 */
struct fcaps_policy_value {
	__u32 len;			/* full size, maybe > FCAPS_MAX_SIZE */
	__u8 value[FCAPS_MAX_SIZE];
};

enum fcaps_mode {
	FCAPS_MODE_SHADOW = 0,		/* record decisions, allow everything */
	FCAPS_MODE_ENFORCE = 1,		/* return the decisions */
};

/*
 * config[0]: the mode and SEMANTICS section 5's switches. Programs do
 * nothing until armed, which the loader sets last, in one update, once
 * everything is attached and pinned: a load killed half-way enforces
 * nothing.
 */
enum fcaps_record {
	FCAPS_RECORD_ALL = 0,		/* every decision (the differential) */
	FCAPS_RECORD_DENIED = 1,	/* refusals only */
	FCAPS_RECORD_NONE = 2,		/* nothing: the cheapest enforcement */
};

struct fcaps_config {
	/* mode, armed and the ceilings' count in the first 64 bits: the
	 * --record none programs test all three in one load (the gate,
	 * FCAPS_ARMED_ENFORCING) */
	__u16 mode;
	__u16 armed;			/* 1 once the loader has armed it */
	/* Ceilings the map may hold (bpf/fcaps.bpf.h): BPF's own count,
	 * changed only by its atomics. The loader writes the fields around
	 * it one by one and never this one (fcaps_config_store()); a
	 * whole-value map update (bpftool map update included) overwrites
	 * it. The gate reads it as the high half of the first 64 bits: the
	 * layout is x86's, little-endian. */
	__u32 ceilings_live;
	__u32 kill;
	__u32 exec;
	__u32 nosuid_ignore;
	__u32 record;			/* enum fcaps_record */
	/*
	 * Policy entries of generation policy_gen are the policy; 'policy
	 * import --replace' writes generation next_gen beside it, then makes
	 * it the policy in one config update, so a replace is atomic. While
	 * next_gen differs, the sync programs write both.
	 */
	__u32 policy_gen;
	__u32 next_gen;
	/* empty but in the layout variant (plants.h): a build whose config
	 * is laid out differently, as a later version's could be */
	FCAPS_CONFIG_TEST_FIELDS
	/* the kernel's recorders are attached (load --kernel-records): only
	 * then does a signal leave its seq for them (fcaps_calls) */
	__u32 kernel_records;
	/* the pin directory (FCAPS_PIN_DIR, its progs/ and links/): s_dev
	 * and inode numbers, which no one but fcapsctl may change
	 * (bpf/integrity.bpf.c) */
	__u32 pin_dev;
	/* a scan runs: a value removed meanwhile leaves a tombstone (the
	 * scan_removed map), so that the scan does not put it back */
	__u32 scanning;
	__u64 pin_ino[3];
};

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the config's gate (FCAPS_ARMED_ENFORCING) assumes little-endian"
#endif

/* The first 64 bits of an armed config in enforce mode with no ceiling
 * live (little-endian); its low 32 bits, whatever the count */
#define FCAPS_ARMED_ENFORCING	((1U << 16) | FCAPS_MODE_ENFORCE)

/*
 * The hooks a record or a counter belongs to, with the names every reader
 * prints: X(NAME, name, what it counts)
 */
#define FCAPS_HOOKS(X)								\
	X(EXEC, exec, "execs decided")						\
	X(KILL, kill, "signals")						\
	X(SETSCHEDULER, setscheduler, "sched_setscheduler() of another")	\
	X(SETNICE, setnice, "setpriority() of another")			\
	X(SETIOPRIO, setioprio, "ioprio_set() of another")			\
	X(XATTR, xattr, "policy updates from setxattr/removexattr")		\
	X(XATTR_GUARD, xattr_guard, "security.* writes refused (SEMANTICS 6)")	\
	X(INTEGRITY, integrity, "changes to BPF enforcement (SEMANTICS 7)")	\
	X(PRLIMIT, prlimit, "prlimit() writes to another's limits")		\
	X(SIGIO, sigio, "SIGIO and SIGURG to an F_SETOWN target")

enum fcaps_hook {
#define FCAPS_HOOK_ENUM(up, low, what) FCAPS_HOOK_##up,
	FCAPS_HOOKS(FCAPS_HOOK_ENUM)
#undef FCAPS_HOOK_ENUM
	FCAPS_NHOOKS,
};

/* A signal's or scheduling call's seq on its way from BPF's decision to
 * the kernel's tracepoint (bpf/fcaps.bpf.h, fcaps_calls) */
#define FCAPS_CALL_SLOTS	1024
struct fcaps_call {
	__u64 tid;			/* 0: free; 64 bits for cmpxchg */
	__u64 seq;
	__u32 hook;
	__u32 target;
	__s32 sig;
	__u32 pad;
};

/* An exec's seq, by the exec'ing task's tid (bpf/fcaps.bpf.h, fcaps_execs) */
struct fcaps_exec_call {
	__u64 tid;			/* 0: free */
	__u64 seq;
	__u64 recorded;			/* seq, once its record was written or lost */
};

struct fcaps_explicit_call {
	__u64 cred;			/* 0: free */
	__u64 seq;
};

/* counters[hook], per CPU: summed by the reader */
struct fcaps_counters {
	__u64 seen;
	__u64 allowed;
	__u64 denied;
	__u64 errors;			/* e.g. a full decision map */
};

/*
 * decisions (BPF) and kdecisions (the kernel's, from its tracepoints): one
 * record per event, the same seq in both, in slot FCAPS_DECISION_SLOT(seq)
 * of an array; seq 0 marks a free slot. Each record
 * holds the decision and every input that can decide it, so that the
 * differential can compare both and tell which rule decided.
 */
struct fcaps_decision {
	__u64 seq;
	__u32 hook;			/* enum fcaps_hook */
	__u32 pid;			/* the exec'ing task, or the sender */
	__u32 target;			/* signal or scheduling target (pid) */
	__u32 target_tgid;		/* ... and its thread group */
	__s32 sig;
	__s32 ret;			/* 0 or -errno: the decision */
	__u32 form;			/* exec: enum fcaps_form of the value */
	__u32 legacy;			/* exec: the legacy rules decided */
	__u32 nosuid;			/* exec: mount may not grant privilege */
	__u32 dev;			/* exec: the final binary (s_dev, ino) */
	__u64 ino;
	__u32 tag;
	__u32 uid;			/* exec: the new ids */
	__u32 euid;
	__u32 suid;
	__u32 gid;
	__u32 egid;
	__u32 old_euid;			/* exec: the ids before */
	__u32 old_egid;
	__u32 securebits;		/* exec: new; others: the sender's */
	__u32 secureexec;		/* exec: AT_SECURE */
	__u32 setid;			/* exec: euid or egid changes */
	__u32 unsafe;			/* exec: bprm->unsafe (LSM_UNSAFE_*) */
	__u32 explicit_cred;		/* signal: sent with explicit credentials */
	__u32 same_userns;		/* signal/sched: sender and target share it */
	__u32 cap_in_target_ns;		/* CAP_KILL/CAP_SYS_NICE in the target's ns */
	__u64 fe, fp, fi;		/* exec: the file's sets */
	__u64 pe, pp, pi, pa;		/* exec: new sets; others: sender's */
	__u64 old_pp, bset;		/* exec: permitted and bounding before */
	__u64 target_pp;		/* signal/scheduling: target's permitted */
	__u32 op;			/* integrity: enum fcaps_integrity_op;
					 * xattr_guard: enum fcaps_guard_op */
	__u32 arg;			/* ... the command, the knob, the call;
					 * xattr_guard: the name's kind */
	__u32 root_uid;			/* exec: make_kuid(the credentials' user
					 * namespace, 0): who is root there */
	__u64 live_old_pp;		/* exec: the permitted set before, as the
					 * credentials hold it (old_pp is under
					 * BPF's ceiling, where there is one) */
};

/* An xattr_guard record: what was written, and which name */
enum fcaps_guard_op {
	FCAPS_GUARD_SET = 1,		/* setxattr(2) and the kernel's own writes */
	FCAPS_GUARD_REMOVE = 2,
};

#define FCAPS_GUARD_OTHER	1	/* arg: another security.* name */
#define FCAPS_GUARD_CAPS	2	/* arg: security.capability */
#define FCAPS_GUARD_EMPTY	0x10	/* arg: ... with an empty value */

/* The kernel's SECURE_NOROOT (include/uapi/linux/securebits.h): its bit in
 * a record's securebits */
#define FCAPS_SECURE_NOROOT	0

/* The kernel's LSM_UNSAFE_* (include/linux/security.h): their bits in an
 * exec record's unsafe */
#define FCAPS_UNSAFE_PTRACE	2
#define FCAPS_UNSAFE_NO_NEW_PRIVS	4

/* What an integrity record (FCAPS_HOOK_INTEGRITY) refused: SEMANTICS 7 */
enum fcaps_integrity_op {
	FCAPS_OP_BPF = 1,		/* a bpf() command (arg: the command) */
	FCAPS_OP_PROG = 2,		/* a program (arg: enum below) */
	FCAPS_OP_MMAP = 3,		/* a writable mapping of a map (arg: 1 mprotect) */
	FCAPS_OP_PIN = 4,		/* the pin directory (arg: enum fcaps_pin_op) */
	FCAPS_OP_KNOB = 5,		/* a knob that silences BPF (arg: enum fcaps_knob) */
};

enum fcaps_prog_op {
	FCAPS_PROG_OURS = 1,		/* a descriptor of one of fcaps' programs */
	FCAPS_PROG_USES_MAP = 2,	/* a program that uses one of fcaps' maps */
	FCAPS_PROG_EXTENDS = 3,		/* a program that replaces one of fcaps' */
};

enum fcaps_pin_op {
	FCAPS_PIN_UNLINK = 1,
	FCAPS_PIN_RMDIR,
	FCAPS_PIN_RENAME,
	FCAPS_PIN_CREATE,
	FCAPS_PIN_MKDIR,
	FCAPS_PIN_SYMLINK,
	FCAPS_PIN_LINK,
	FCAPS_PIN_SETATTR,
};

enum fcaps_knob {
	FCAPS_KNOB_FTRACE = 1,		/* kernel.ftrace_enabled */
	FCAPS_KNOB_KPROBES = 2,		/* debugfs kprobes/enabled */
	FCAPS_KNOB_MODPROBE = 3,	/* kernel.modprobe: CAP_SYS_MODULE */
};

/*
 * Which of the two policy maps holds @v: legacy-tagged values ("policy"),
 * which only writers holding CAP_SETFCAP in the filesystem's own namespace
 * can make (SEMANTICS 1: none at all on stock 6.1), or any other
 * ("policy61": 6.1's formats, which root in a user namespace may write on
 * its own files). Apart, no unprivileged user can fill the map that holds
 * the values BPF enforces.
 */
static __always_inline int fcaps_policy_is_legacy(const struct fcaps_policy_value *v)
{
	__u32 tag;

	if (v->len == FCAPS_LEN_UNREADABLE || v->len < 4)
		return 0;
	tag = fcaps_le32(v->value);
	return tag == FCAPS_V1_TAG || tag == FCAPS_V3_TAG;
}

#endif /* FCAPS_ABI_H */
