/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The maps and globals every fcaps program shares (weak, so that the
 * linked object holds one of each; pinned by name; globals defined once,
 * in shared.bpf.c), and the config, count and record helpers around them.
 */
#ifndef FCAPS_MAPS_BPF_H
#define FCAPS_MAPS_BPF_H

/* loads and stores in program order (seqjoin.bpf.h, the ceilings' copies) */
#define FCAPS_READ_ONCE(x)	(*(volatile typeof(x) *)&(x))
#define fcaps_barrier()		asm volatile("" ::: "memory")

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
 * instructions on every call (docs/benchmark.md).
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
 * check, the pair rule for every signal (docs/benchmark.md). A new entry's
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
 * credentials still asks (docs/benchmark.md). Raised and lowered with the
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

static __always_inline __u32 ceiling_index(__u64 key)
{
	/* credentials are slab objects of 192 bytes: their low 6 bits say nothing */
	return (key >> 6 ^ key >> 18) & fcaps_ceiling_mask & (FCAPS_CEILING_BUCKETS - 1);
}

static __always_inline __u32 *ceiling_bucket(__u64 key)
{
	return &fcaps_ceiling_buckets[ceiling_index(key)];
}

/*
 * A copy of each bucket's last ceiling read (struct fcaps_ceiling_front),
 * so that a signal between two capped processes costs loads, not two hash
 * lookups (docs/benchmark.md). Every change of a ceiling, the map's first,
 * then ceiling_front_stale(); a copy made from a lookup that the change
 * could have raced is never used, as its fill starts from a seq read
 * before the lookup.
 */
extern struct fcaps_ceiling_front fcaps_ceiling_front[FCAPS_CEILING_BUCKETS];

static __always_inline struct fcaps_ceiling_front *ceiling_front(__u64 key)
{
	return &fcaps_ceiling_front[ceiling_index(key)];
}

/* after any change to @key's ceiling, or its removal, in the map */
static __always_inline void ceiling_front_stale(__u64 key)
{
	__sync_fetch_and_add(&ceiling_front(key)->seq, 2);
}

static __always_inline void ceiling_front_fill(struct fcaps_ceiling_front *f, __u64 seq,
					       __u64 key, const struct fcaps_ceiling *c)
{
	if ((seq & 1) || __sync_val_compare_and_swap(&f->seq, seq, seq + 1) != seq)
		return;
	f->key = key;
	f->pe = c->pe;
	f->pp = c->pp;
	f->valid = seq + 2;
	/* seq + 2 = valid, unless a change came meanwhile (+2 more) */
	__sync_fetch_and_add(&f->seq, 1);
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

/* @key's ceiling and-ed into *@pp and *@pe: 1, or 0 if it has none */
static __always_inline int ceiling_sets(__u64 key, __u64 *pp, __u64 *pe)
{
	struct fcaps_ceiling_front *f;
	struct fcaps_ceiling *c;
	__u64 seq, cpp, cpe;
	int copy;

	if (!ceiling_maybe(key))
		return 0;
	f = ceiling_front(key);
	seq = FCAPS_READ_ONCE(f->seq);
	fcaps_barrier();
	cpe = f->pe;
	cpp = f->pp;
	copy = f->key == key && f->valid == seq;
	fcaps_barrier();
	if (copy && FCAPS_READ_ONCE(f->seq) == seq) {
		*pp &= cpp;
		*pe &= cpe;
		return 1;
	}
	seq = FCAPS_READ_ONCE(f->seq);
	fcaps_barrier();
	c = bpf_map_lookup_elem(&ceilings, &key);
	if (!c)
		return 0;
	*pp &= c->pp;
	*pe &= c->pe;
	ceiling_front_fill(f, seq, key, c);
	return 1;
}

/* @cred's permitted and effective sets as the kernel path would hold
 * them: the live ones, under the ceiling of a capped file's runner */
static __always_inline void fcaps_capped_sets(const struct cred *cred, __u64 *pp, __u64 *pe)
{
	ceiling_sets(ceiling_key(cred), pp, pe);
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

#endif /* FCAPS_MAPS_BPF_H */
