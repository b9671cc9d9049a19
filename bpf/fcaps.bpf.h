/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the fcaps BPF programs share: the maps (weak, so that the linked
 * object holds one of each; pinned by name) and small helpers.
 */
#ifndef FCAPS_BPF_H
#define FCAPS_BPF_H

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
#define SECURE_NOROOT	0
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

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fcaps_config);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} config SEC(".maps") __weak;

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
 * kernel's tracepoint (an exec sleeps in between), so that the kernel's
 * record joins BPF's. It only joins records: no decision is ever taken
 * from it.
 */
struct fcaps_inflight {
	__u64 exec_seq;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct fcaps_inflight);
} inflight SEC(".maps") __weak;

/*
 * The seq of a signal or scheduling call, from the fmod_ret program to the
 * kernel's tracepoint inside the same security_task_*() call. Per CPU: a
 * task storage lookup on each side cost more than the rest of recording.
 * The tracepoint takes it only for the same task, hook, target and signal,
 * and takes it once, so that a call moved to another CPU in between finds
 * no seq (its kernel record is missing, which the differential reports)
 * rather than another call's. A signal sent with explicit credentials (USB
 * completion, maybe in interrupt context between a task's two halves) has
 * its own seq, matched by the credentials it carries.
 */
struct fcaps_call {
	__u64 seq;
	__u64 task;
	__u32 hook;
	__u32 target;
	__s32 sig;
	__u32 pad;
	__u64 explicit_seq;
	__u64 cred;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fcaps_call);
} call_inflight SEC(".maps") __weak;

/* The next event number; seq 0 is never used. */
__u64 fcaps_next_seq __weak;

static __always_inline struct fcaps_config *fcaps_config(void)
{
	__u32 zero = 0;
	struct fcaps_config *cfg = bpf_map_lookup_elem(&config, &zero);

	/* nothing happens until the loader has armed a complete set */
	return cfg && cfg->armed ? cfg : NULL;
}

/* The config whether armed or not: the sync programs work from the start */
static __always_inline struct fcaps_config *fcaps_config_raw(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&config, &zero);
}

static __always_inline struct fcaps_inflight *fcaps_inflight(struct task_struct *task)
{
	return bpf_task_storage_get(&inflight, task, 0,
				    BPF_LOCAL_STORAGE_GET_F_CREATE);
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

static __always_inline __u64 fcaps_cap64(kernel_cap_t c)
{
	return (__u64)c.cap[0] | (__u64)c.cap[1] << 32;
}

static __always_inline int fcaps_has_cap(kernel_cap_t c, int cap)
{
	return (fcaps_cap64(c) >> cap) & 1;
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

static __always_inline int fcaps_ns_capable(const struct cred *cred,
					    struct user_namespace *ns, int cap)
{
	enum fcaps_ns_verdict v = fcaps_ns_walk(cred, ns);

	return v == FCAPS_NS_OWNER ||
	       (v == FCAPS_NS_OWN_PE && fcaps_has_cap(cred->cap_effective, cap));
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

#endif /* FCAPS_BPF_H */
