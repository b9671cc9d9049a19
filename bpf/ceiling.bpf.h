/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Setting and dropping ceilings (ceiling.bpf.c has the rest): shared by
 * the exec program, which caps an exec's new credentials in the same
 * decision that enforces it, and by the ceiling's own programs.
 */
#ifndef FCAPS_CEILING_BPF_H
#define FCAPS_CEILING_BPF_H

#include "exec_rules.bpf.h"

#define ENOENT 2
#define ENOMEM 12
#define EEXIST 17

/* ceilings cap only in enforce mode */
static __always_inline int enforcing(void)
{
	struct fcaps_config *cfg = fcaps_config();

	return cfg && cfg->mode == FCAPS_MODE_ENFORCE;
}

/* Insert @key's ceiling, counted first; 0 or the map's error */
static __always_inline int ceiling_insert(__u64 key, const struct fcaps_ceiling *c)
{
	__u32 *bucket = ceiling_bucket(key);
	int err;

	__sync_fetch_and_add(&fcaps_cfg.ceilings_live, 1);
	__sync_fetch_and_add(bucket, 1);
	err = bpf_map_update_elem(&ceilings, &key, c, BPF_NOEXIST);
	if (err) {
		__sync_fetch_and_sub(bucket, 1);
		__sync_fetch_and_sub(&fcaps_cfg.ceilings_live, 1);
	}
	ceiling_front_stale(key);
	return err;
}

/* Set @key's ceiling to @c; 0 or the map's error (full: fail closed) */
static __always_inline int ceiling_set(__u64 key, const struct fcaps_ceiling *c)
{
	int err = ceiling_insert(key, c);

	if (err != -EEXIST)
		return err;
	/* already capped: replace it; gone meanwhile, insert it again */
	err = bpf_map_update_elem(&ceilings, &key, c, BPF_EXIST);
	ceiling_front_stale(key);
	return err == -ENOENT ? ceiling_insert(key, c) : err;
}

static __always_inline void ceiling_drop(__u64 key)
{
	int err = bpf_map_delete_elem(&ceilings, &key);

	/* after the map: a lookup between the two cannot leave a copy */
	ceiling_front_stale(key);
	if (err)
		return;
	__sync_fetch_and_sub(ceiling_bucket(key), 1);
	__sync_fetch_and_sub(&fcaps_cfg.ceilings_live, 1);
}

/*
 * The new credentials of an exec (@key), decided as @d from the ceiling
 * they inherited (@old, prepare_exec_creds() copied it): capped by what
 * the kernel path would give. For a legacy value, the file's sets;
 * otherwise, for credentials already capped, 6.1's rules applied to the
 * capped old sets (the unsafe-exec downgrade keeps pP' within them; pA was
 * cleared by the legacy exec) when that is below what 6.1 gave. 0, or the
 * map's error: no exec goes ahead without its ceiling (fail closed).
 */
static __always_inline int ceiling_exec(const struct cred *new, __u64 key,
					const struct fcaps_ceiling *old,
					const struct fcaps_decision *d)
{
	struct fcaps_ceiling c;

	if (!d->legacy && (!old || !((fcaps_cap64(new->cap_effective) & ~d->pe) |
				     (fcaps_cap64(new->cap_permitted) & ~d->pp) |
				     (fcaps_cap64(new->cap_ambient) & ~d->pa)))) {
		if (old)
			ceiling_drop(key);
		return 0;
	}
	c.pe = fcaps_plant(CEILING_PP) ? d->pp : d->pe;
	c.pp = d->pp;
	c.pa = d->pa;
	return ceiling_set(key, &c);
}

/* Namespaces made by capped creators without CAP_SETFCAP (ceiling.bpf.c) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FCAPS_MAX_MARKS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64);		/* struct cred * until created, then user_namespace * */
	__type(value, __u8);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} ns_marks SEC(".maps") __weak;

/* as ceilings_live; and a mark that did not fit makes every namespace's
 * own uid_map unwritable (fail closed): ceiling.bpf.c */
extern __u64 ns_marks_live, ns_marks_lost;

#define FMODE_WRITE 0x2
extern const void proc_uid_map_operations __ksym;

/*
 * A marked namespace's own uid_map, opened for writing: the write
 * verify_root_map() refuses on the kernel path. A root creator can map
 * nothing else there (another uid needs CAP_SETUID over the parent, which
 * capable() asks). For the lsm/file_open program (integrity.bpf.c).
 */
static __always_inline int fcaps_ceiling_uid_map(struct file *file)
{
	__u64 key;

	if (!*(volatile __u64 *)&ns_marks_live ||
	    (void *)file->f_op != &proc_uid_map_operations)
		return 0;
	key = (__u64)file->f_cred->user_ns;
	if ((*(volatile __u64 *)&ns_marks_lost || bpf_map_lookup_elem(&ns_marks, &key)) &&
	    enforcing())
		return -EPERM;
	return 0;
}

#endif /* FCAPS_CEILING_BPF_H */
