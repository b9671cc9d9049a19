/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User namespaces as the kernel walks them: id maps (make_kuid(),
 * kuid_has_mapping()), who owns a rootid, and cap_capable()'s answer for
 * credentials in a namespace.
 */
#ifndef FCAPS_USERNS_BPF_H
#define FCAPS_USERNS_BPF_H

#include "maps.bpf.h"

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

/* Is @id in inline extent @i (a constant) of the id map at @map? Its
 * kernel id into @kid if so. */
static __always_inline int fcaps_extent_down(unsigned long map, const int i, __u32 n,
					     __u32 id, __u32 *kid)
{
	struct uid_gid_extent e;

	if (i >= n || bpf_core_read(&e, sizeof(e), &((struct uid_gid_map *)map)->extent[i]))
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
 * map_id_down(): the kernel id the id map at @map gives @id, or
 * FCAPS_NO_ID. With @only_first past five extents, only the first is
 * read: they are sorted by first and disjoint, so an id 0 can be in no
 * other.
 */
static __always_inline __u32 fcaps_map_id_down(unsigned long map, __u32 id, int only_first)
{
	struct fcaps_id_walk w = { .id = id, .kid = FCAPS_NO_ID };
	__u32 n = BPF_CORE_READ((struct uid_gid_map *)map, nr_extents);

	if (n <= UID_GID_MAP_MAX_BASE_EXTENTS) {
		if (fcaps_extent_down(map, 0, n, id, &w.kid) ||
		    fcaps_extent_down(map, 1, n, id, &w.kid) ||
		    fcaps_extent_down(map, 2, n, id, &w.kid) ||
		    fcaps_extent_down(map, 3, n, id, &w.kid) ||
		    fcaps_extent_down(map, 4, n, id, &w.kid))
			return w.kid;
		return FCAPS_NO_ID;
	}
	w.forward = BPF_CORE_READ((struct uid_gid_map *)map, forward);
	if (only_first)
		fcaps_map_down_step(0, &w);
	else
		bpf_loop(n < UID_GID_MAP_MAX_EXTENTS ? n : UID_GID_MAP_MAX_EXTENTS,
			 fcaps_map_down_step, &w, 0);
	return w.kid;
}

/* make_kuid(@ns, @id): the kernel id of @ns's @id, or FCAPS_NO_ID */
static __always_inline __u32 fcaps_map_down_(unsigned long ns, __u32 id, int only_first)
{
	if (!fcaps_ns_read(ns, level))
		return id;		/* the initial namespace maps every id to itself */
	return fcaps_map_id_down((unsigned long)&((struct user_namespace *)ns)->uid_map, id,
				 only_first);
}

static __always_inline __u32 fcaps_map_down(struct user_namespace *ns, __u32 id)
{
	/* the initial namespace, in a plain load */
	return ns->level ? fcaps_map_down_((unsigned long)ns, id, 0) : id;
}

/* map_id_up(): the id that the id map at @map (a namespace's uid_map or
 * gid_map, or a mount's) gives kernel id @kid, or FCAPS_NO_ID */
struct fcaps_up_walk {
	struct uid_gid_extent *forward;
	__u32 kid, id;
};

static __always_inline int fcaps_extent_up(unsigned long map, const int i, __u32 n, __u32 kid,
					   __u32 *id)
{
	struct uid_gid_extent e;

	if (i >= n || bpf_core_read(&e, sizeof(e), &((struct uid_gid_map *)map)->extent[i]))
		return 0;
	if (kid < e.lower_first || kid - e.lower_first >= e.count)
		return 0;
	*id = e.first + (kid - e.lower_first);
	return 1;
}

static long fcaps_map_up_step(__u32 i, struct fcaps_up_walk *w)
{
	struct uid_gid_extent e;

	if (bpf_probe_read_kernel(&e, sizeof(e), w->forward + i))
		return 1;
	if (w->kid < e.lower_first || w->kid - e.lower_first >= e.count)
		return 0;
	w->id = e.first + (w->kid - e.lower_first);
	return 1;
}

static __always_inline __u32 fcaps_map_id_up(unsigned long map, __u32 kid)
{
	struct fcaps_up_walk w = { .kid = kid, .id = FCAPS_NO_ID };
	__u32 n = BPF_CORE_READ((struct uid_gid_map *)map, nr_extents);

	if (n <= UID_GID_MAP_MAX_BASE_EXTENTS) {
		if (fcaps_extent_up(map, 0, n, kid, &w.id) || fcaps_extent_up(map, 1, n, kid, &w.id) ||
		    fcaps_extent_up(map, 2, n, kid, &w.id) || fcaps_extent_up(map, 3, n, kid, &w.id) ||
		    fcaps_extent_up(map, 4, n, kid, &w.id))
			return w.id;
		return FCAPS_NO_ID;
	}
	w.forward = BPF_CORE_READ((struct uid_gid_map *)map, forward);
	bpf_loop(n < UID_GID_MAP_MAX_EXTENTS ? n : UID_GID_MAP_MAX_EXTENTS,
		 fcaps_map_up_step, &w, 0);
	return w.id;
}

/* kuid_has_mapping() and kgid_has_mapping(): is kernel id @kid in the id
 * map at @map? */
static __always_inline int fcaps_has_mapping(unsigned long map, __u32 kid)
{
	return fcaps_map_id_up(map, kid) != FCAPS_NO_ID;
}

/*
 * A mount's idmapping, as the id maps an id goes through (0: none):
 * 6.1's is a user namespace (vfsmount.mnt_userns, the first argument of
 * the inode hooks), 6.12's a struct mnt_idmap with maps of its own,
 * nop_mnt_idmap for none.
 */
struct fcaps_idmap {
	__u64 idmap, fs_ns;		/* asked: the idmapping, the filesystem's namespace */
	__u64 uid_map, gid_map;		/* the mount's */
	__u64 fs_uid_map, fs_gid_map;	/* the filesystem's namespace's, 0: initial */
};

struct mnt_idmap___6_12 {
	struct uid_gid_map uid_map;
	struct uid_gid_map gid_map;
} __attribute__((preserve_access_index));

struct vfsmount___6_12 {
	struct mnt_idmap___6_12 *mnt_idmap;
} __attribute__((preserve_access_index));

/* The maps of idmapping @m->idmap (6.1's user namespace or 6.12's
 * mnt_idmap) for a filesystem of namespace @m->fs_ns, left 0 if it maps
 * nothing (exec.bpf.c, which alone may name nop_mnt_idmap: libbpf 1.1
 * cannot link a typeless ksym declared in two objects). Numbers in
 * memory: a global function's arguments are scalars or memory. */
int fcaps_idmap_of(struct fcaps_idmap *m);

/* The maps of idmapping @idmap for a filesystem of @fs_ns into @m */
static __always_inline void fcaps_idmap_set(struct fcaps_idmap *m, __u64 idmap,
					    struct user_namespace *fs_ns)
{
	m->idmap = idmap;
	m->fs_ns = (__u64)fs_ns;
	if (idmap)
		fcaps_idmap_of(m);
}

/* @mnt's idmapping into @m */
static __always_inline void fcaps_mnt_idmap(struct vfsmount *mnt, struct user_namespace *fs_ns,
					    struct fcaps_idmap *m)
{
	__u64 idmap = 0;

	if (bpf_core_field_exists(mnt->mnt_userns))
		bpf_core_read(&idmap, sizeof(idmap), &mnt->mnt_userns);
	else
		bpf_core_read(&idmap, sizeof(idmap), &((struct vfsmount___6_12 *)mnt)->mnt_idmap);
	fcaps_idmap_set(m, idmap, fs_ns);
}

/* make_vfsuid() and make_vfsgid(): kernel id @id of a filesystem whose
 * namespace's id map is at @fs_map (0: the initial namespace) as the
 * mount's id map at @mnt_map shows it, or FCAPS_NO_ID (exec.bpf.c) */
struct fcaps_idmap_query {
	__u64 fs_map, mnt_map;
	__u32 id;
};

__u32 fcaps_vfsid(const struct fcaps_idmap_query *q);

static __always_inline __u32 vfsid_of(__u64 fs_map, __u64 mnt_map, __u32 id)
{
	struct fcaps_idmap_query q = { .fs_map = fs_map, .mnt_map = mnt_map, .id = id };

	return mnt_map ? fcaps_vfsid(&q) : id;
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

static __always_inline int fcaps_root_owns(unsigned long ns, __u32 kroot)
{
	struct fcaps_ns_walk w = { .ns = ns, .kroot = kroot };

	if (!fcaps_ns_read(ns, level))
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

static __always_inline int fcaps_in_userns(unsigned long ns, unsigned long target)
{
	struct fcaps_ns_walk w = { .ns = ns, .target = target };

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

/* A namespace's field: a plain load through the BTF pointer, or for
 * @probe (the namespace a number) a probing read */
#define fcaps_ns_field(ns, field, probe)					\
	((probe) ? fcaps_ns_read(ns, field) : ((struct user_namespace *)(ns))->field)

/* How cap_capable() decides for credentials whose namespace is @own and
 * euid @euid, in @ns: by their effective set (their own namespace), all
 * granted (a namespace the euid created below their own), or none
 * (anywhere else). One walk for BTF pointers and (@probe) for numbers. */
static __always_inline enum fcaps_ns_verdict fcaps_ns_walk_of(unsigned long own, __u32 euid,
							      unsigned long ns, const int probe)
{
	for (int i = 0; i < 33 && ns; i++) {	/* 32 nested namespaces at most */
		if (ns == own)
			return FCAPS_NS_OWN_PE;
		if (fcaps_ns_field(ns, level, probe) <= fcaps_ns_field(own, level, probe))
			return FCAPS_NS_NONE;
		if ((unsigned long)fcaps_ns_field(ns, parent, probe) == own &&
		    fcaps_ns_field(ns, owner.val, probe) == euid)
			return FCAPS_NS_OWNER;
		ns = (unsigned long)fcaps_ns_field(ns, parent, probe);
	}
	return FCAPS_NS_NONE;
}

static __always_inline enum fcaps_ns_verdict fcaps_ns_walk(const struct cred *cred,
							   struct user_namespace *ns)
{
	return fcaps_ns_walk_of((unsigned long)cred->user_ns, cred->euid.val,
				(unsigned long)ns, 0);
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

#endif /* FCAPS_USERNS_BPF_H */
