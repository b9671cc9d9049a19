/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the fcaps BPF programs share: the maps (weak, so that the linked
 * object holds one of each; pinned by name), the globals (defined once, in
 * shared.bpf.c: the linker keeps every object's copy of a weak global) and
 * small helpers.
 */
#ifndef FCAPS_BPF_H
#define FCAPS_BPF_H

#include <bpf/bpf_core_read.h>
#include "fcaps.h"

#define EPERM		1
#define EINVAL		22
#define ERANGE		34
#define MNT_NOSUID	0x01
#define S_ISUID		04000
#define S_ISGID		02000
#define S_IXGRP		00010
#define LSM_UNSAFE_PTRACE	2
#define LSM_UNSAFE_NO_NEW_PRIVS	4
#define SECURE_NOROOT	FCAPS_SECURE_NOROOT
#define SECURE_KEEP_CAPS	4
#define CAP_KILL	5
#define CAP_SETUID	7
#define CAP_SYS_PTRACE	19
#define CAP_SYS_ADMIN	21
#define CAP_SYS_NICE	23
#define CAP_SETFCAP	31
#define CAP_FULL	((2ULL << FCAPS_LAST_CAP) - 1)

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FCAPS_MAX_POLICY);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct fcaps_file_key);
	__type(value, struct fcaps_policy_value);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} policy SEC(".maps") __weak;

/* Values that are not legacy-tagged (fcaps_policy_is_legacy()): 6.1's
 * formats, which BPF only predicts; a key is in one of the two maps */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FCAPS_MAX_POLICY);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct fcaps_file_key);
	__type(value, struct fcaps_policy_value);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} policy61 SEC(".maps") __weak;

/*
 * config: a global in a section of its own, which libbpf makes a one-slot
 * array; the loader pins it as FCAPS_PIN_DIR/config, so that it reads (and
 * dumps) as the array map it was. It is written through its mapping, never
 * as a whole value: ceilings_live in it is BPF's (fcaps_config_store()).
 * A program reads it with plain loads, where a map lookup cost a dozen
 * instructions on every call (the bench note).
 */
extern struct fcaps_config fcaps_cfg;	/* shared.bpf.c: SEC(".data.config") */

/*
 * ceilings[struct cred *] (ceiling.bpf.c): what the legacy rules would have
 * left credentials that ran a capped file. Every rule that reads live sets
 * reads them through it (ceiling_of()).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FCAPS_MAX_CEILINGS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64);			/* ceiling_key(struct cred *) */
	__type(value, struct fcaps_ceiling);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} ceilings SEC(".maps") __weak;

/*
 * How many ceilings the map may hold (fcaps_cfg.ceilings_live, fcaps.h):
 * raised before an entry can exist, lowered after one is gone, so never
 * fewer than there are. While it is 0 (no capped credentials anywhere, the usual state)
 * nothing looks one up: the cred_prepare and __put_cred programs run for
 * every copy and every free of credentials, capable() for every capability
 * check, the pair rule for every signal (the bench note). A new entry's
 * key is credentials nobody uses yet (being prepared, or an exec's before
 * commit), so no lookup that matters can fall between the insert and the
 * count.
 */
static __always_inline __u32 fcaps_ceilings_live(void)
{
	return *(volatile __u32 *)&fcaps_cfg.ceilings_live;
}

/*
 * The same count kept by a hash of the key (shared.bpf.c), so that a
 * lookup that cannot hit costs a load rather than a hash map's walk: while
 * one capped process lives, every copy and every free of anybody's
 * credentials still asks (the bench note). Raised and lowered with the
 * total, so a bucket is never below the ceilings it holds.
 */
extern __u32 fcaps_ceiling_buckets[FCAPS_CEILING_BUCKETS];
/* how many of them are used, less one (load --ceiling-buckets): 0 puts
 * every ceiling in one, so that tests can make keys share a bucket */
extern const volatile __u32 fcaps_ceiling_mask;

/*
 * The key of @cred's ceiling: its address as a number, relative to the
 * bucket table (the same in every program of a load). A pointer allows
 * no arithmetic but the subtraction of another, and a key the verifier
 * sees as a pointer turns into a plain number once a helper has read it.
 */
static __always_inline __u64 ceiling_key(const struct cred *cred)
{
	__u64 key = (__u64)cred;

	asm volatile("%0 -= %1" : "+r"(key) : "r"(fcaps_ceiling_buckets));
	return key;
}

static __always_inline __u32 *ceiling_bucket(__u64 key)
{
	/* credentials are slab objects of 192 bytes: their low 6 bits say nothing */
	return &fcaps_ceiling_buckets[(key >> 6 ^ key >> 18) & fcaps_ceiling_mask &
				      (FCAPS_CEILING_BUCKETS - 1)];
}

/* may @key have a ceiling? (no: it has none) */
static __always_inline int ceiling_maybe(__u64 key)
{
	return fcaps_ceilings_live() && *(volatile __u32 *)ceiling_bucket(key);
}

static __always_inline struct fcaps_ceiling *ceiling_of(__u64 key)
{
	if (!ceiling_maybe(key))
		return NULL;
	return bpf_map_lookup_elem(&ceilings, &key);
}

/* @cred's permitted and effective sets as the kernel path would hold
 * them: the live ones, under the ceiling of a capped file's runner */
static __always_inline void fcaps_capped_sets(const struct cred *cred, __u64 *pp, __u64 *pe)
{
	struct fcaps_ceiling *c = ceiling_of(ceiling_key(cred));

	if (c) {
		*pp &= c->pp;
		*pe &= c->pe;
	}
}

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FCAPS_NHOOKS);
	__type(key, __u32);
	__type(value, struct fcaps_counters);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} counters SEC(".maps") __weak;

/*
 * decisions: BPF's; kdecisions: the kernel's, from its tracepoints. Arrays
 * used as rings, so that a record is written in place without a helper
 * call or a lock (a hash update cost more than the rest of a signal's
 * program). A record whose slot still holds an older one is not written
 * and is counted in its hook's errors, so that a loss is never silent
 * ('fcapsctl decisions --clear' frees the slots). Mapped by the readers.
 */
#define FCAPS_DECISION_MAP(name)					\
	struct {							\
		__uint(type, BPF_MAP_TYPE_ARRAY);			\
		__uint(max_entries, FCAPS_MAX_DECISIONS);		\
		__uint(map_flags, BPF_F_MMAPABLE);			\
		__type(key, __u32);					\
		__type(value, struct fcaps_decision);			\
		__uint(pinning, LIBBPF_PIN_BY_NAME);			\
	} name SEC(".maps") __weak

FCAPS_DECISION_MAP(decisions);
FCAPS_DECISION_MAP(kdecisions);

/*
 * The seq of the exec a task is in, from bprm_creds_for_exec to the
 * kernel's tracepoint (an exec sleeps in between), so that one execve is
 * one event, however many interpreters, and the kernel's record joins
 * BPF's: a slot of a global table chosen by the task's tid, which holds
 * until de_thread(), after the tracepoint. It only joins records: no
 * decision is ever taken from it. Task storage was the first design: its
 * slot, created in every new process, cost 960 of exec_begin's 1,039
 * instructions (the bench note). A slot another exec overwrote in between
 * (tids equal modulo the table) leaves the exec a second seq and no
 * kernel record, which the differential reports.
 */
#define FCAPS_EXEC_SLOTS	4096
extern struct fcaps_exec_call fcaps_execs[FCAPS_EXEC_SLOTS];	/* shared.bpf.c */

static __always_inline struct fcaps_exec_call *fcaps_exec_slot(__u32 tid)
{
	return &fcaps_execs[tid & (FCAPS_EXEC_SLOTS - 1)];
}

/* The seq of @tid's exec, or 0 */
static __always_inline __u64 fcaps_exec_seq_get(__u32 tid)
{
	struct fcaps_exec_call *e = fcaps_exec_slot(tid);
	__u64 seq = e->seq;

	/* the tid read after the seq: a writer clears it first, sets it last */
	asm volatile("" ::: "memory");
	return *(volatile __u64 *)&e->tid == tid ? seq : 0;
}

static __always_inline void fcaps_exec_seq_set(__u32 tid, __u64 seq)
{
	struct fcaps_exec_call *e = fcaps_exec_slot(tid);

	*(volatile __u64 *)&e->tid = 0;
	asm volatile("" ::: "memory");
	e->seq = seq;
	asm volatile("" ::: "memory");
	*(volatile __u64 *)&e->tid = tid;
}


/*
 * The seq of a signal or scheduling call, from the fmod_ret program to the
 * kernel's tracepoint inside the same security_task_*() call, in a slot of
 * a global table chosen by the caller's tid: plain loads and stores, where
 * a per-CPU map or task storage cost a helper call on each side (the bench
 * note). The tracepoint takes the seq only for its own tid, hook, target
 * and signal, and takes it once; a slot another call overwrote in between
 * (tids equal modulo the table, on another CPU or after a sleep) gives no
 * seq, so that the kernel's record goes missing, which the differential
 * reports, rather than joining the wrong event. The tid is written last
 * and cleared first, and read before and after the rest: on x86 (stores
 * seen in order) a reader that sees its tid twice read one writer's slot.
 * A signal sent with explicit credentials (USB completion, maybe in
 * interrupt context between a task's two halves) has a slot of its own,
 * matched by the credentials it carries. (struct fcaps_call: fcaps.h, as
 * the skeleton shows these globals to the loader.)
 */
extern struct fcaps_call fcaps_calls[FCAPS_CALL_SLOTS];
extern struct fcaps_explicit_call fcaps_explicit_call;

#define FCAPS_READ_ONCE(x)	(*(volatile typeof(x) *)&(x))
#define fcaps_barrier()		asm volatile("" ::: "memory")

static __always_inline struct fcaps_call *fcaps_call_slot(__u32 tid)
{
	return &fcaps_calls[tid & (FCAPS_CALL_SLOTS - 1)];
}

static __always_inline void fcaps_call_begin(__u32 tid, __u32 hook, __u32 target,
					     int sig, __u64 seq)
{
	struct fcaps_call *c = fcaps_call_slot(tid);

	FCAPS_READ_ONCE(c->tid) = 0;
	fcaps_barrier();
	c->hook = hook;
	c->target = target;
	c->sig = sig;
	c->seq = seq;
	fcaps_barrier();
	FCAPS_READ_ONCE(c->tid) = tid;
}

/* Forget the call (it was refused before the kernel's tracepoint). */
static __always_inline void fcaps_call_end(__u32 tid)
{
	__sync_val_compare_and_swap(&fcaps_call_slot(tid)->tid, (__u64)tid, 0);
}

/* The seq fcaps_call_begin() gave this very call, taken once; 0 if none */
static __always_inline __u64 fcaps_call_take(__u32 tid, __u32 hook, __u32 target, int sig)
{
	struct fcaps_call *c = fcaps_call_slot(tid);
	__u64 seq;
	int same;

	if (FCAPS_READ_ONCE(c->tid) != tid)
		return 0;
	fcaps_barrier();
	seq = c->seq;
	same = c->hook == hook && c->target == target && c->sig == sig;
	fcaps_barrier();
	if (!same || __sync_val_compare_and_swap(&c->tid, (__u64)tid, 0) != tid)
		return 0;
	return seq;
}

/* The next event number; seq 0 is never used. */
extern __u64 fcaps_next_seq;

/* The id of this load's BTF object, which every map and program of it
 * carries: set by the loader before it arms (integrity.bpf.c) */
extern __u32 fcaps_own_btf;

static __always_inline struct fcaps_config *fcaps_config(void)
{
	/* nothing happens until the loader has armed a complete set */
	struct fcaps_config *cfg = fcaps_cfg.armed ? &fcaps_cfg : NULL;

	/* opaque to clang, so that later code tests cfg rather than armed
	 * again, which the verifier cannot follow */
	asm volatile("" : "+r"(cfg));
	return cfg;
}

/* The config whether armed or not: the sync programs work from the start */
static __always_inline struct fcaps_config *fcaps_config_raw(void)
{
	return &fcaps_cfg;
}

static __always_inline __u64 fcaps_new_seq(void)
{
	return __sync_fetch_and_add(&fcaps_next_seq, 1) + 1;
}

static __always_inline void fcaps_count(__u32 hook, int ret, int error)
{
	struct fcaps_counters *c = bpf_map_lookup_elem(&counters, &hook);

	if (!c)
		return;
	/* per CPU, and a program does not migrate: no atomics needed */
	c->seen++;
	if (error)
		c->errors++;
	else if (ret)
		c->denied++;
	else
		c->allowed++;
}

/* Whether a decision with result @ret is to be recorded */
static __always_inline int fcaps_recording(const struct fcaps_config *cfg, int ret)
{
	return cfg->record == FCAPS_RECORD_ALL ||
	       (cfg->record == FCAPS_RECORD_DENIED && ret);
}

/*
 * A kernel_cap_t as one mask, in one 64-bit load: the verifier lets a load
 * span an array of integers, x86 and BPF are little-endian (cap[0] is the
 * low word), and x86 loads unaligned words (cred's sets sit at 4 modulo 8,
 * which is why clang, left to itself, splits the load in two). Every load
 * through a BTF pointer is a probing load, seven x86 instructions where a
 * plain one is one, so the hot paths count them (the bench note).
 */
static __always_inline __u64 fcaps_cap64p(const kernel_cap_t *c)
{
	/* not true of the address, but what makes clang emit the one load
	 * (with its CO-RE offset in the instruction) that x86 can do */
	return *(const __u64 *)__builtin_assume_aligned(c, 8);
}

#define fcaps_cap64(c)		fcaps_cap64p(&(c))
#define fcaps_has_cap(c, cap)	((fcaps_cap64(c) >> (cap)) & 1)

#define OVERLAYFS_SUPER_MAGIC 0x794c7630

/*
 * The inode whose security.capability the kernel reads for @inode: an
 * overlay's inode reads its upper (else lower) layer's, and every write or
 * removal through it reaches the layer as well. Probed reads: a number.
 */
static __always_inline unsigned long fcaps_value_inode(struct inode *inode)
{
	struct inode *in = inode;
	unsigned long magic = BPF_CORE_READ(in, i_sb, s_magic);

	for (int i = 0; i < 3 && magic == OVERLAYFS_SUPER_MAGIC; i++) {	/* stacked */
		struct ovl_inode *oi = (void *)((unsigned long)in -
						bpf_core_field_offset(struct ovl_inode, vfs_inode));
		struct dentry *real = BPF_CORE_READ(oi, __upperdentry);
		struct inode *next;

		if (!real)
			real = BPF_CORE_READ(oi, lowerpath.dentry);
		next = BPF_CORE_READ(real, d_inode);
		if (!next)
			break;
		in = next;
		magic = BPF_CORE_READ(in, i_sb, s_magic);
	}
	return (unsigned long)in;
}

/*
 * The policy key of @inode: the kernel's s_dev and inode number of the
 * inode whose value the kernel reads (fcaps_value_inode()). An overlay's
 * own numbers are no key (a directory's come from a counter, so they
 * collide with the layers').
 */
static __always_inline void fcaps_inode_key_probed(struct inode *inode, __u32 *dev, __u64 *ino)
{
	struct inode *in = (struct inode *)fcaps_value_inode(inode);

	*dev = BPF_CORE_READ(in, i_sb, s_dev);
	*ino = BPF_CORE_READ(in, i_ino);
}

/* The same from a BTF pointer: the usual case in plain loads */
static __always_inline void fcaps_inode_key(struct inode *inode, __u32 *dev, __u64 *ino)
{
	if (inode->i_sb->s_magic == OVERLAYFS_SUPER_MAGIC) {
		fcaps_inode_key_probed(inode, dev, ino);
		return;
	}
	*dev = inode->i_sb->s_dev;
	*ino = inode->i_ino;
}

/*
 * The user namespace a v3 value's rootid is relative to: that of the
 * filesystem the value is read from, an overlay's layer's (which the
 * overlay's own read converts there and back: a mount of it in a user
 * namespace changes nothing). A number, for fcaps_map_down_().
 */
static __always_inline unsigned long fcaps_value_ns(struct inode *inode)
{
	if (inode->i_sb->s_magic != OVERLAYFS_SUPER_MAGIC)
		return (unsigned long)inode->i_sb->s_user_ns;
	return (unsigned long)BPF_CORE_READ((struct inode *)fcaps_value_inode(inode),
					    i_sb, s_user_ns);
}

#define UID_GID_MAP_MAX_BASE_EXTENTS 5
#define UID_GID_MAP_MAX_EXTENTS 340
#define FCAPS_NO_ID ((__u32)-1)

/*
 * User namespaces are walked with bpf_loop(), whose callback the verifier
 * checks once, and read as plain memory (the verifier resolves a load in
 * the uid map's union as the inline extents', and a callback's pointers
 * are numbers).
 */
#define fcaps_ns_read(ns, field) BPF_CORE_READ((struct user_namespace *)(ns), field)	/* ns: a local */

/* Is @id in inline extent @i (a constant) of @ns's uid map? Its kernel id
 * into @kid if so. */
static __always_inline int fcaps_extent_down(unsigned long ns, const int i, __u32 n,
					     __u32 id, __u32 *kid)
{
	struct uid_gid_extent e;

	if (i >= n || bpf_core_read(&e, sizeof(e),
				    &((struct user_namespace *)ns)->uid_map.extent[i]))
		return 0;
	if (id < e.first || id - e.first >= e.count)
		return 0;
	*kid = e.lower_first + (id - e.first);
	return 1;
}

/* Past five extents, the array behind the pointer (map_id_range_down_max()) */
struct fcaps_id_walk {
	struct uid_gid_extent *forward;
	__u32 id, kid;
};

static long fcaps_map_down_step(__u32 i, struct fcaps_id_walk *w)
{
	struct uid_gid_extent e;

	if (bpf_probe_read_kernel(&e, sizeof(e), w->forward + i))
		return 1;
	if (w->id < e.first || w->id - e.first >= e.count)
		return 0;
	w->kid = e.lower_first + (w->id - e.first);
	return 1;
}

/*
 * make_kuid(@ns, @id): the kernel id of @ns's @id, or FCAPS_NO_ID. With
 * @only_first past five extents, only the first is read: they are sorted
 * by first and disjoint, so an id 0 can be in no other.
 */
static __always_inline __u32 fcaps_map_down_(unsigned long ns, __u32 id, int only_first)
{
	struct fcaps_id_walk w = { .id = id, .kid = FCAPS_NO_ID };
	__u32 n;

	if (!fcaps_ns_read(ns, level))
		return id;		/* the initial namespace maps every id to itself */
	n = fcaps_ns_read(ns, uid_map.nr_extents);
	if (n <= UID_GID_MAP_MAX_BASE_EXTENTS) {
		if (fcaps_extent_down(ns, 0, n, id, &w.kid) ||
		    fcaps_extent_down(ns, 1, n, id, &w.kid) ||
		    fcaps_extent_down(ns, 2, n, id, &w.kid) ||
		    fcaps_extent_down(ns, 3, n, id, &w.kid) ||
		    fcaps_extent_down(ns, 4, n, id, &w.kid))
			return w.kid;
		return FCAPS_NO_ID;
	}
	w.forward = fcaps_ns_read(ns, uid_map.forward);
	if (only_first)
		fcaps_map_down_step(0, &w);
	else
		bpf_loop(n < UID_GID_MAP_MAX_EXTENTS ? n : UID_GID_MAP_MAX_EXTENTS,
			 fcaps_map_down_step, &w, 0);
	return w.kid;
}

static __always_inline __u32 fcaps_map_down(struct user_namespace *ns, __u32 id)
{
	/* the initial namespace, in a plain load */
	return ns->level ? fcaps_map_down_((unsigned long)ns, id, 0) : id;
}

/* kuid_has_mapping() and kgid_has_mapping(): is kernel id @kid in the id
 * map at @map (a namespace's uid_map or gid_map)? */
struct fcaps_up_walk {
	struct uid_gid_extent *forward;
	__u32 kid;
	int found;
};

static __always_inline int fcaps_extent_up(unsigned long map, const int i, __u32 n, __u32 kid)
{
	struct uid_gid_extent e;

	if (i >= n || bpf_core_read(&e, sizeof(e), &((struct uid_gid_map *)map)->extent[i]))
		return 0;
	return kid >= e.lower_first && kid - e.lower_first < e.count;
}

static long fcaps_map_up_step(__u32 i, struct fcaps_up_walk *w)
{
	struct uid_gid_extent e;

	if (bpf_probe_read_kernel(&e, sizeof(e), w->forward + i))
		return 1;
	w->found = w->kid >= e.lower_first && w->kid - e.lower_first < e.count;
	return w->found;
}

static __always_inline int fcaps_has_mapping(unsigned long map, __u32 kid)
{
	struct fcaps_up_walk w = { .kid = kid };
	__u32 n = BPF_CORE_READ((struct uid_gid_map *)map, nr_extents);

	if (n <= UID_GID_MAP_MAX_BASE_EXTENTS)
		return fcaps_extent_up(map, 0, n, kid) || fcaps_extent_up(map, 1, n, kid) ||
		       fcaps_extent_up(map, 2, n, kid) || fcaps_extent_up(map, 3, n, kid) ||
		       fcaps_extent_up(map, 4, n, kid);
	w.forward = BPF_CORE_READ((struct uid_gid_map *)map, forward);
	bpf_loop(n < UID_GID_MAP_MAX_EXTENTS ? n : UID_GID_MAP_MAX_EXTENTS,
		 fcaps_map_up_step, &w, 0);
	return w.found;
}

/* The walk up from a namespace: what it looks for, and what it found */
struct fcaps_ns_walk {
	unsigned long ns, target;
	__u32 kroot;
	int found;
};

/* rootid_owns_currentns(): is @kroot the root of @ns or of an ancestor? */
static long fcaps_root_owns_step(__u32 i, struct fcaps_ns_walk *w)
{
	unsigned long ns = w->ns;	/* CO-RE reads name kernel types only */

	if (fcaps_map_down_(ns, 0, 1) == w->kroot) {
		w->found = 1;
		return 1;
	}
	if (!fcaps_ns_read(ns, level))
		return 1;
	w->ns = (unsigned long)fcaps_ns_read(ns, parent);
	return !w->ns;
}

static __always_inline int fcaps_root_owns(struct user_namespace *ns, __u32 kroot)
{
	struct fcaps_ns_walk w = { .ns = (unsigned long)ns, .kroot = kroot };

	if (!ns->level)
		return kroot == 0;
	if (kroot != FCAPS_NO_ID)	/* 32 nested namespaces at most */
		bpf_loop(33, fcaps_root_owns_step, &w, 0);
	return w.found;
}

/* current_in_userns(@target) for credentials in @ns */
static long fcaps_in_userns_step(__u32 i, struct fcaps_ns_walk *w)
{
	unsigned long ns = w->ns;	/* CO-RE reads name kernel types only */

	if (ns == w->target) {
		w->found = 1;
		return 1;
	}
	if (!fcaps_ns_read(ns, level))
		return 1;
	w->ns = (unsigned long)fcaps_ns_read(ns, parent);
	return !w->ns;
}

static __always_inline int fcaps_in_userns(struct user_namespace *ns,
					   struct user_namespace *target)
{
	struct fcaps_ns_walk w = { .ns = (unsigned long)ns, .target = (unsigned long)target };

	if (ns == target)
		return 1;
	bpf_loop(33, fcaps_in_userns_step, &w, 0);
	return w.found;
}

/* make_kuid(@ns, 0) */
static __always_inline __u32 fcaps_ns_root(struct user_namespace *ns)
{
	return ns->level ? fcaps_map_down_((unsigned long)ns, 0, 1) : 0;
}

/*
 * cap_capable(): does @cred hold @cap in @ns? In its own namespace, by its
 * effective set; in a descendant, if it owns the namespace's parent chain.
 */
enum fcaps_ns_verdict { FCAPS_NS_NONE, FCAPS_NS_OWN_PE, FCAPS_NS_OWNER };

/* How cap_capable() decides for @cred in @ns: by its effective set (its own
 * namespace), all granted (a namespace its euid created below its own), or
 * none (anywhere else) */
static __always_inline enum fcaps_ns_verdict fcaps_ns_walk(const struct cred *cred,
							   struct user_namespace *ns)
{
	struct user_namespace *own = cred->user_ns;

	for (int i = 0; i < 33 && ns; i++) {	/* 32 nested namespaces at most */
		if (ns == own)
			return FCAPS_NS_OWN_PE;
		if (ns->level <= own->level)
			return FCAPS_NS_NONE;
		if (ns->parent == own && ns->owner.val == cred->euid.val)
			return FCAPS_NS_OWNER;
		ns = ns->parent;
	}
	return FCAPS_NS_NONE;
}

/* The same with @cred's own namespace and effective set already read */
static __always_inline int fcaps_ns_capable_from(const struct cred *cred,
						 struct user_namespace *own, __u64 pe,
						 struct user_namespace *ns, int cap)
{
	enum fcaps_ns_verdict v = ns == own ? FCAPS_NS_OWN_PE : fcaps_ns_walk(cred, ns);

	return v == FCAPS_NS_OWNER || (v == FCAPS_NS_OWN_PE && (pe >> cap) & 1);
}

/* ... with @cred's pE as the ceiling of a capped file's runner leaves it */
static __always_inline int fcaps_ns_capable_capped(const struct cred *cred,
						   struct user_namespace *ns, int cap)
{
	__u64 pe = fcaps_cap64(cred->cap_effective), pp = 0;

	fcaps_capped_sets(cred, &pp, &pe);
	return fcaps_ns_capable_from(cred, cred->user_ns, pe, ns, cap);
}

/*
 * Store @d (d->seq != 0) in its slot of @map; 0, or -1 when the slot still
 * holds an unread record of another event (an exec's own record is
 * replaced: the interpreter's follows the script's). The seq goes last, so
 * that a reader that sees it sees the whole record (x86 keeps stores in
 * order; the barrier keeps the compiler from moving them).
 */
static __always_inline int fcaps_record(void *map, struct fcaps_decision *d)
{
	__u32 slot = FCAPS_DECISION_SLOT(d->seq);
	struct fcaps_decision *r = bpf_map_lookup_elem(map, &slot);
	__u64 seq = d->seq;

	if (!r || (r->seq && r->seq != seq))
		return -1;
	d->seq = 0;
	*r = *d;
	d->seq = seq;
	asm volatile("" ::: "memory");
	r->seq = seq;
	return 0;
}

/*
 * What a signal's or scheduling call's record says of its sender (@scred)
 * and target, and what the rule looks at: filled by BPF's decision and by
 * the kernel's recorder alike.
 */
/*
 * A signal's or scheduling call's record is written in place, field by
 * field as it is read, into its free ring slot: not built on the stack and
 * copied (a whole record is three times the stores it needs, and a dozen
 * facts held across the rule spilled to the stack). A free slot is all zero
 * (readers clear a record before they free its slot, ring_free()), so the
 * exec fields stay 0. NULL when the slot still holds another event's
 * record: the caller decides without one and counts the loss.
 */
static __always_inline struct fcaps_decision *fcaps_free_slot(void *map, __u64 seq)
{
	__u32 slot = FCAPS_DECISION_SLOT(seq);
	struct fcaps_decision *r = bpf_map_lookup_elem(map, &slot);

	return r && !r->seq ? r : NULL;
}

/* Who sends to whom: read once, for the record and for the join */
struct fcaps_call_ids {
	__u32 pid, target, target_tgid;
};

static __always_inline void fcaps_call_ids(struct fcaps_call_ids *ids,
					   struct task_struct *task, struct task_struct *p)
{
	ids->pid = task->pid;
	ids->target = p->pid;
	ids->target_tgid = p->tgid;
}

/*
 * Sender @scred, target @tcred, and what the rule looks at (its
 * capability @cap in the target's namespace), into @r: by BPF's decision
 * and by the kernel's recorder alike.
 */
static __always_inline void fcaps_call_facts(struct fcaps_decision *r, __u32 hook,
					     const struct fcaps_call_ids *ids, int sig,
					     const struct cred *scred,
					     const struct cred *tcred,
					     int explicit_cred, int cap, int capped)
{
	/* every probing load once, then the stores */
	struct user_namespace *own = scred->user_ns, *tns = tcred->user_ns;
	__u64 pp = fcaps_cap64(scred->cap_permitted);
	__u64 pe = fcaps_cap64(scred->cap_effective);
	__u64 target_pp = fcaps_cap64(tcred->cap_permitted), target_pe = 0;
	__u32 securebits = scred->securebits;

	/* BPF's decision (@capped) sees the sets the kernel path would;
	 * the kernel's recorder, the kernel's own */
	if (capped) {
		fcaps_capped_sets(scred, &pp, &pe);
		fcaps_capped_sets(tcred, &target_pp, &target_pe);
	}

	r->hook = hook;
	r->pid = ids->pid;
	r->target = ids->target;
	r->target_tgid = ids->target_tgid;
	r->sig = sig;
	r->explicit_cred = explicit_cred;
	r->pp = pp;
	r->pe = pe;
	r->target_pp = target_pp;
	r->securebits = securebits;
	r->same_userns = own == tns;
	r->cap_in_target_ns = fcaps_ns_capable_from(scred, own, pe, tns, cap);
}

/* The record complete: its seq goes last (fcaps_record()) */
static __always_inline void fcaps_call_commit(struct fcaps_decision *r, __u64 seq, int ret)
{
	r->ret = ret;
	fcaps_barrier();
	r->seq = seq;
}

#endif /* FCAPS_BPF_H */
