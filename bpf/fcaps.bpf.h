/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the fcaps BPF programs share: the maps (weak, so that the linked
 * object holds one of each; pinned by name) and small helpers.
 */
#ifndef FCAPS_BPF_H
#define FCAPS_BPF_H

#include "fcaps.h"

#define EPERM		1
#define MNT_NOSUID	0x01
#define S_ISUID		04000
#define S_ISGID		02000
#define S_IXGRP		00010
#define LSM_UNSAFE_PTRACE	2
#define LSM_UNSAFE_NO_NEW_PRIVS	4
#define CAP_SETUID	7
#define CAP_KILL	5
#define CAP_SYS_PTRACE	19
#define CAP_SYS_NICE	23
#define CAP_FULL	((2ULL << FCAPS_LAST_CAP) - 1)

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FCAPS_MAX_POLICY);
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
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FCAPS_NHOOKS);
	__type(key, __u32);
	__type(value, struct fcaps_counters);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} counters SEC(".maps") __weak;

/* decisions: BPF's; kdecisions: the kernel's, from its tracepoints */
#define FCAPS_DECISION_MAP(name)					\
	struct {							\
		__uint(type, BPF_MAP_TYPE_LRU_HASH);			\
		__uint(max_entries, FCAPS_MAX_DECISIONS);		\
		__type(key, __u64);					\
		__type(value, struct fcaps_decision);			\
		__uint(pinning, LIBBPF_PIN_BY_NAME);			\
	} name SEC(".maps") __weak

FCAPS_DECISION_MAP(decisions);
FCAPS_DECISION_MAP(kdecisions);

/*
 * The event a hook is deciding, so that later hooks of the same event (a
 * script's interpreter, the kernel's tracepoint, the enforcing LSM hook)
 * use its seq: exec events by their linux_binprm, others by task.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, __u64);
} inflight SEC(".maps") __weak;

/* The next event number; seq 0 is never used. */
__u64 fcaps_next_seq __weak;

static __always_inline struct fcaps_config *fcaps_config(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&config, &zero);
}

static __always_inline __u64 fcaps_new_seq(__u64 inflight_key)
{
	__u64 seq = __sync_fetch_and_add(&fcaps_next_seq, 1) + 1;

	bpf_map_update_elem(&inflight, &inflight_key, &seq, BPF_ANY);
	return seq;
}

static __always_inline __u64 fcaps_seq_of(__u64 inflight_key)
{
	__u64 *seq = bpf_map_lookup_elem(&inflight, &inflight_key);

	return seq ? *seq : 0;
}

static __always_inline void fcaps_count(__u32 hook, int ret, int error)
{
	struct fcaps_counters *c = bpf_map_lookup_elem(&counters, &hook);

	if (!c)
		return;
	__sync_fetch_and_add(&c->seen, 1);
	if (error)
		__sync_fetch_and_add(&c->errors, 1);
	else if (ret)
		__sync_fetch_and_add(&c->denied, 1);
	else
		__sync_fetch_and_add(&c->allowed, 1);
}

static __always_inline __u64 fcaps_cap64(kernel_cap_t c)
{
	return (__u64)c.cap[0] | (__u64)c.cap[1] << 32;
}

static __always_inline int fcaps_has_cap(kernel_cap_t c, int cap)
{
	return (fcaps_cap64(c) >> cap) & 1;
}

/* Store @d as the decision of event @seq in @map; 0 or -1. */
static __always_inline int fcaps_record(void *map, struct fcaps_decision *d)
{
	return bpf_map_update_elem(map, &d->seq, d, BPF_ANY) ? -1 : 0;
}

#endif /* FCAPS_BPF_H */
