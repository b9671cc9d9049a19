/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fcaps: the one definition of the legacy security.capability formats
 * (SEMANTICS.md section 1), shared by the BPF programs, the loader and the
 * tests. Include after vmlinux.h (BPF) or <linux/types.h> (userspace).
 */
#ifndef FCAPS_H
#define FCAPS_H

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

#define FCAPS_XATTR_NAME	"security.capability"

#define FCAPS_V1_TAG		0x19980330U	/* the seed's vfs_cap_data_disk */
#define FCAPS_V3_TAG		0x20080522U	/* 64-bit: low words, high words */
#define FCAPS_V1_SIZE		16
#define FCAPS_V3_SIZE		28
#define FCAPS_MAX_SIZE		FCAPS_V3_SIZE
#define FCAPS_LAST_CAP		40		/* CAP_LAST_CAP on 6.1 */
#define FCAPS_VALID_MASK	((2ULL << FCAPS_LAST_CAP) - 1)

/* On-disk layouts, all fields little-endian. */
struct fcaps_v1 {
	__u32 tag;
	__u32 effective;
	__u32 permitted;
	__u32 inheritable;
};

struct fcaps_v3 {
	__u32 tag;
	struct {
		__u32 effective;
		__u32 permitted;
		__u32 inheritable;
	} data[2];			/* [0]: caps 0-31, [1]: caps 32-63 */
};

/* A legacy value decoded into 64-bit masks (bit n = capability n). */
struct fcaps_sets {
	__u64 effective;
	__u64 permitted;
	__u64 inheritable;
};

/* 6.1's own formats (include/uapi/linux/capability.h) */
#define FCAPS_61_REVISION_MASK	0xFF000000U
#define FCAPS_61_EFFECTIVE	0x000001U
#define FCAPS_61_REVISION_1	0x01000000U	/* 12 bytes, caps 0-31 */
#define FCAPS_61_REVISION_2	0x02000000U	/* 20 bytes */
#define FCAPS_61_REVISION_3	0x03000000U	/* 24 bytes, with a rootid */
#define FCAPS_61_MAX_SIZE	24		/* 6.1's read buffer */
/*
 * A policy entry's len for a value that 6.1's getxattr refuses (EINVAL: too
 * short for a tag, a revision word it cannot show), so that the loader
 * cannot read it. 6.1's exec refuses most of them with EINVAL, which is
 * what BPF records; but not all (ERANGE past 24 bytes; a 12-byte revision
 * 1 or a v2 with unknown flag bits runs), so BPF never enforces a 6.1
 * value's error: the kernel does that itself (NOTES, Approximations).
 */
#define FCAPS_LEN_UNREADABLE	0xFFFFFFFFU

enum fcaps_form {
	FCAPS_NOT_LEGACY = 0,	/* absent, too short for a tag, or 6.1's own */
	FCAPS_WELL_FORMED = 1,
	FCAPS_MALFORMED = 2,	/* legacy tag, wrong size or bits > LAST_CAP */
};

/*
 * FCAPS_PLANT_<BUG> (BPF builds of the differential's self-check only)
 * plants one realistic bug, to prove the differential catches it; the
 * list, with what each should be caught on, is tests/diff/plants.txt.
 */

/* ---- BPF maps, pinned by name under FCAPS_PIN_DIR ---- */

#define FCAPS_PIN_DIR		"/sys/fs/bpf/fcaps"
#define FCAPS_MAX_DECISIONS	65536	/* a power of two: slot = seq & (max - 1) */
#define FCAPS_DECISION_SLOT(seq)	((__u32)((seq) & (FCAPS_MAX_DECISIONS - 1)))
_Static_assert((FCAPS_MAX_DECISIONS & (FCAPS_MAX_DECISIONS - 1)) == 0,
	       "the decision rings are indexed by seq masked to their size");
#define FCAPS_MAX_POLICY	(1 << 20)	/* allocated as used */
#define FCAPS_MAX_TOMBSTONES	65536	/* values removed while a scan runs */

#define FCAPS_MAX_CEILINGS	65536
/* the ceilings' filter (bpf/fcaps.bpf.h): live ceilings by a hash of the key */
#define FCAPS_CEILING_BUCKETS	4096

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
#ifdef FCAPS_LAYOUT_VARIANT
	/* tests only: a build whose config is laid out differently, as a
	 * later version's could be (bpf.sh, the loader's layout check) */
	__u32 layout_variant;
#endif
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
	__u32 op;			/* integrity: enum fcaps_integrity_op */
	__u32 arg;			/* ... the command, the knob, the call */
};

/* The kernel's SECURE_NOROOT (include/uapi/linux/securebits.h): its bit in
 * a record's securebits */
#define FCAPS_SECURE_NOROOT	0

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

static __always_inline __u32 fcaps_le32(const __u8 *p)
{
	return (__u32)p[0] | (__u32)p[1] << 8 | (__u32)p[2] << 16 |
	       (__u32)p[3] << 24;
}

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

/*
 * Classify and decode a security.capability value. @len is the attribute's
 * full size; @buf holds its first min(len, FCAPS_MAX_SIZE) bytes. @sets is
 * written only for FCAPS_WELL_FORMED.
 */
static __always_inline enum fcaps_form
fcaps_decode(const __u8 *buf, __u32 len, struct fcaps_sets *sets)
{
	__u64 e, p, i;
	__u32 tag;

	if (len < 4)
		return FCAPS_NOT_LEGACY;
	tag = fcaps_le32(buf);
	if (tag == FCAPS_V1_TAG) {
#ifdef FCAPS_PLANT_WRONG_SIZE	/* planted bug: longer v1 values accepted */
		if (len < FCAPS_V1_SIZE)
#else
		if (len != FCAPS_V1_SIZE)
#endif
			return FCAPS_MALFORMED;
		e = fcaps_le32(buf + 4);
		p = fcaps_le32(buf + 8);
		i = fcaps_le32(buf + 12);
	} else if (tag == FCAPS_V3_TAG) {
		if (len != FCAPS_V3_SIZE)
			return FCAPS_MALFORMED;
		e = fcaps_le32(buf + 4) | (__u64)fcaps_le32(buf + 16) << 32;
		p = fcaps_le32(buf + 8) | (__u64)fcaps_le32(buf + 20) << 32;
		i = fcaps_le32(buf + 12) | (__u64)fcaps_le32(buf + 24) << 32;
#ifdef FCAPS_PLANT_V3_HIGH	/* planted bug: v3 high words ignored */
		e = (__u32)e;
		p = (__u32)p;
		i = (__u32)i;
#endif
	} else {
		return FCAPS_NOT_LEGACY;
	}
	if ((e | p | i) & ~FCAPS_VALID_MASK)
		return FCAPS_MALFORMED;
	sets->effective = e;
	sets->permitted = p;
	sets->inheritable = i;
	return FCAPS_WELL_FORMED;
}

/*
 * 6.1's reading of a value that is not legacy-tagged (get_vfs_caps_from_disk
 * and bprm_caps_from_vfs_caps): 0 with the sets, the effective flag and the
 * rootid, or the error the exec then fails with (-ERANGE: longer than 6.1's
 * buffer; -EINVAL: shorter than a tag, unknown revision, wrong size).
 */
static __always_inline int fcaps_decode_61(const __u8 *buf, __u32 len,
					   struct fcaps_sets *sets,
					   __u32 *effective, __u32 *rootid)
{
	__u32 magic, rev;

	if (len == FCAPS_LEN_UNREADABLE)
		return -22;			/* EINVAL */
	if (len > FCAPS_61_MAX_SIZE)
		return -34;			/* ERANGE */
	if (len < 4)
		return -22;			/* EINVAL */
	magic = fcaps_le32(buf);
	rev = magic & FCAPS_61_REVISION_MASK;
	*rootid = 0;
	if (rev == FCAPS_61_REVISION_1 && len == 12) {
		sets->permitted = fcaps_le32(buf + 4);
		sets->inheritable = fcaps_le32(buf + 8);
	} else if ((rev == FCAPS_61_REVISION_2 && len == 20) ||
		   (rev == FCAPS_61_REVISION_3 && len == 24)) {
		sets->permitted = fcaps_le32(buf + 4) |
				  (__u64)fcaps_le32(buf + 12) << 32;
		sets->inheritable = fcaps_le32(buf + 8) |
				    (__u64)fcaps_le32(buf + 16) << 32;
		if (rev == FCAPS_61_REVISION_3)
			*rootid = fcaps_le32(buf + 20);
	} else {
		return -22;
	}
	/* 6.1 drops bits above CAP_LAST_CAP rather than refusing them */
	sets->permitted &= FCAPS_VALID_MASK;
	sets->inheritable &= FCAPS_VALID_MASK;
	sets->effective = magic & FCAPS_61_EFFECTIVE ? sets->permitted : 0;
	*effective = !!(magic & FCAPS_61_EFFECTIVE);
	return 0;
}

static __always_inline void fcaps_put_le32(__u8 *p, __u32 v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

/*
 * Encode @sets as a legacy value with @tag into @buf (FCAPS_MAX_SIZE bytes).
 * Returns the value's size; v1 keeps only the low 32 bits of each set.
 */
static __always_inline __u32 fcaps_encode(const struct fcaps_sets *sets,
					  __u32 tag, __u8 *buf)
{
	fcaps_put_le32(buf, tag);
	fcaps_put_le32(buf + 4, (__u32)sets->effective);
	fcaps_put_le32(buf + 8, (__u32)sets->permitted);
	fcaps_put_le32(buf + 12, (__u32)sets->inheritable);
	if (tag == FCAPS_V1_TAG)
		return FCAPS_V1_SIZE;
	fcaps_put_le32(buf + 16, (__u32)(sets->effective >> 32));
	fcaps_put_le32(buf + 20, (__u32)(sets->permitted >> 32));
	fcaps_put_le32(buf + 24, (__u32)(sets->inheritable >> 32));
	return FCAPS_V3_SIZE;
}

#endif /* FCAPS_H */
