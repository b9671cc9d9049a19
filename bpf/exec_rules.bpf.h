/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SEMANTICS section 2 as BPF computes it: the decision for an exec and
 * the credentials the kernel would give, from the policy map. Shared by
 * the exec programs (decide, record, enforce) and the ceiling.
 */
#ifndef FCAPS_EXEC_RULES_BPF_H
#define FCAPS_EXEC_RULES_BPF_H

#include "fcaps.bpf.h"

/*
 * The old credentials' sets an exec starts from: the live ones, or under a
 * ceiling (ceiling.bpf.c) what the kernel path would have left them.
 */
struct fcaps_old_sets {
	__u64 pe, pp, pa;
};

/*
 * The user namespace walks of an exec's decision, each a function of its
 * own (exec.bpf.c), which the verifier checks once in each program that
 * calls it, not again on every path through the rules. Their pointers
 * come as numbers, in memory they are given (a function's pointer
 * arguments can only be to memory).
 */
struct fcaps_ns_query {
	__u64 ns, other;	/* user namespaces, or other: an id map */
	__u32 id;
};

/* current_in_userns(): is @ns, or an ancestor, @other? */
int fcaps_exec_in_userns(const struct fcaps_ns_query *q);
/* rootid_owns_currentns(): is kernel id @id the root of @ns or an ancestor? */
int fcaps_exec_root_owns(const struct fcaps_ns_query *q);
/* kuid_has_mapping(): is kernel id @id in the id map at @other? */
int fcaps_exec_has_mapping(const struct fcaps_ns_query *q);
/* make_kuid(@ns, @id), or FCAPS_NO_ID */
__u32 fcaps_exec_map_down(const struct fcaps_ns_query *q);

/* ptracer_capable() for the tracer's credentials @cred (@key its
 * ceiling's) in @ns: CAP_SYS_PTRACE in pE as a ceiling leaves it */
struct fcaps_tracer_query {
	__u64 cred, key, ns;
};

int fcaps_exec_tracer_capable(const struct fcaps_tracer_query *q);

static __always_inline int exec_in_userns(const void *ns, const void *target)
{
	struct fcaps_ns_query q = { .ns = (__u64)ns, .other = (__u64)target };

	return fcaps_exec_in_userns(&q);
}

static __always_inline int exec_root_owns(const void *ns, __u32 kroot)
{
	struct fcaps_ns_query q = { .ns = (__u64)ns, .id = kroot };

	return fcaps_exec_root_owns(&q);
}

static __always_inline int exec_has_mapping(const void *map, __u32 kid)
{
	struct fcaps_ns_query q = { .other = (__u64)map, .id = kid };

	return fcaps_exec_has_mapping(&q);
}

static __always_inline __u32 exec_map_down(__u64 ns, __u32 id)
{
	struct fcaps_ns_query q = { .ns = ns, .id = id };

	return fcaps_exec_map_down(&q);
}

/* make_kuid(@ns, 0), as fcaps_ns_root() (past five extents the walk reads
 * more than the first, which alone can hold id 0: the same answer) */
static __always_inline __u32 exec_ns_root(struct user_namespace *ns)
{
	return ns->level ? exec_map_down((__u64)ns, 0) : 0;
}

/* check_mnt(): is @mnt in @task's mount namespace? (struct mount holds
 * the vfsmount: read around it) */
static __always_inline int fcaps_mnt_local(struct vfsmount *mnt, struct task_struct *task)
{
	struct mount *m = (void *)((unsigned long)mnt - bpf_core_field_offset(struct mount, mnt));

	return BPF_CORE_READ(m, mnt_ns) == task->nsproxy->mnt_ns;
}

/* The unsafe-exec downgrade, as 6.1's bprm_unsafe path does it. */
static __always_inline void downgrade(struct linux_binprm *bprm,
				      struct task_struct *task,
				      const struct cred *old,
				      const struct fcaps_old_sets *o,
				      struct fcaps_decision *d)
{
	struct fcaps_tracer_query q;
	const struct cred *tracer;

	if (!(d->setid || (d->pp & ~d->old_pp)))
		return;
	/* ptracer_capable(), asked only where the kernel asks it */
	if (!(bprm->unsafe & ~LSM_UNSAFE_PTRACE)) {
		tracer = task->ptracer_cred;
		if (!tracer)
			return;
		q.cred = (__u64)tracer;
		q.key = ceiling_key(tracer);
		q.ns = (__u64)old->user_ns;
		if (fcaps_exec_tracer_capable(&q))
			return;
	}
	if (!((o->pe >> CAP_SETUID) & 1) ||
	    (bprm->unsafe & LSM_UNSAFE_NO_NEW_PRIVS)) {
		d->euid = d->uid;
		d->egid = d->gid;
	}
	d->pp &= d->old_pp;
}

/* SEMANTICS 2.3-2.7: the file's sets overwrite root's */
static __always_inline void legacy_rules(struct linux_binprm *bprm,
					 struct task_struct *task,
					 const struct cred *old,
					 const struct fcaps_old_sets *o,
					 const struct fcaps_sets *f,
					 struct fcaps_decision *d)
{
	__u32 root;

	d->legacy = 1;
	d->fe = f->effective;
	d->fp = f->permitted;
	d->fi = f->inheritable;
	d->pp = (f->permitted & d->bset) | (f->inheritable & d->pi);
	downgrade(bprm, task, old, o, d);
	/* root: the namespace's, as 6.1 measures it (make_kuid(ns, 0)) */
	root = fcaps_plant(NS_ROOT_GLOBAL) ? 0 : d->root_uid;
	d->pe = fcaps_plant(IGNORE_FE) ? d->pp : d->pp & f->effective;
	d->secureexec = d->setid ||
		(d->uid != root && (f->effective | f->permitted |
				    (fcaps_plant(SECURE_NO_FI) ? 0 : f->inheritable)));
}

/* 6.1's cap_bprm_creds_from_file() for no value or a 6.1-format one */
static __always_inline void rules_61(struct linux_binprm *bprm,
				     struct task_struct *task,
				     const struct cred *old,
				     const struct fcaps_old_sets *o,
				     const struct fcaps_policy_value *pol,
				     struct user_namespace *fs_ns, unsigned long value_ns,
				     const struct fcaps_idmap *im, struct fcaps_decision *d)
{
	__u32 effective = 0, has_fcap = 0, rootid = 0, root = d->root_uid;
	struct fcaps_sets f = {};
	int rc;

	if (pol) {
		rc = fcaps_decode_61(pol->value, pol->len, &f, &effective, &rootid);
		if (rc) {
			d->ret = rc;
			return;
		}
		/* a rootid (the filesystem's; a v2 value's is its root) that
		 * does not own our namespace or an ancestor: as if absent. A
		 * v3 rootid is relative to the filesystem that holds the value
		 * (an overlay's layer), a v2 value's root to the mount's; the
		 * mount's idmapping shows either as the exec sees it. */
		if ((fcaps_le32(pol->value) & FCAPS_61_REVISION_MASK) != FCAPS_61_REVISION_3)
			value_ns = (unsigned long)fs_ns;
		rootid = vfsid_of(im->fs_uid_map, im->uid_map, exec_map_down(value_ns, rootid));
		if (exec_root_owns(old->user_ns, rootid)) {
			has_fcap = 1;
			d->pp = (f.permitted & d->bset) | (f.inheritable & d->pi);
			if (effective && (f.permitted & ~d->pp)) {
				d->ret = -EPERM;
				return;
			}
		} else {
			effective = 0;
		}
	}
	/* handle_privileged_root() */
	if (!(old->securebits & (1 << SECURE_NOROOT)) &&
	    !(has_fcap && d->euid == root && d->uid != root)) {
		if (d->euid == root || d->uid == root)
			d->pp = d->bset | d->pi;
		if (d->euid == root)
			effective = 1;
	}
	d->pa = has_fcap || d->setid ? 0 : o->pa;
	downgrade(bprm, task, old, o, d);
	d->pp |= d->pa;
	d->pe = effective ? d->pp : d->pa;
	d->secureexec = d->setid ||
		(d->uid != root && (effective || (d->pp & ~d->pa)));
}

/*
 * The decision for an exec whose credentials come from @file, from the
 * live old sets or, with @ceiling, the sets the kernel path would have.
 */
static __always_inline void decide_from(struct linux_binprm *bprm, struct file *file,
					const struct fcaps_config *cfg,
					const struct fcaps_ceiling *ceiling,
					struct fcaps_decision *d)
{
	struct task_struct *task = bpf_get_current_task_btf();
	const struct cred *old = task->cred;
	struct fcaps_old_sets o = {
		.pe = fcaps_cap64(old->cap_effective),
		.pp = fcaps_cap64(old->cap_permitted),
		.pa = fcaps_cap64(old->cap_ambient),
	};
	struct inode *inode = file->f_inode;
	struct fcaps_file_key key = {};
	struct fcaps_policy_value *pol;
	struct vfsmount *mnt = file->f_path.mnt;
	struct user_namespace *fs_ns = mnt->mnt_sb->s_user_ns;
	struct fcaps_sets f = {};
	struct fcaps_idmap im = {};
	__u32 mode = inode->i_mode, tag = 0, vuid, vgid;
	int may_suid, suid_ok, legacy;

	fcaps_inode_key(inode, &key.dev, &key.ino);
	key.gen = cfg->policy_gen;
	d->dev = key.dev;
	d->ino = key.ino;
	d->nosuid = !!(file->f_path.mnt->mnt_flags & MNT_NOSUID);
	d->unsafe = bprm->unsafe;
	d->old_euid = old->euid.val;
	d->old_egid = old->egid.val;
	d->live_old_pp = o.pp;
	if (ceiling && !fcaps_plant(EXEC_LIVE_OLD)) {
		o.pe &= ceiling->pe;
		o.pp &= fcaps_plant(CEILING_TIGHT) ? ceiling->pe : ceiling->pp;
		o.pa &= ceiling->pa;
	}
	d->old_pp = o.pp;
	d->bset = fcaps_cap64(old->cap_bset);
	d->pi = fcaps_cap64(old->cap_inheritable);
	d->securebits = old->securebits & ~(1 << SECURE_KEEP_CAPS);

	/* mnt_may_suid(): not nosuid, and neither a mount of another mount
	 * namespace nor one of a user namespace we are not in (a foreign
	 * mount is as nosuid; the record's nosuid is the mount flag) */
	may_suid = !d->nosuid && exec_in_userns(old->user_ns, fs_ns);
	/* a probed read: only where a setid bit or a value could count */
	pol = bpf_map_lookup_elem(&policy, &key);
	if (!pol)
		pol = bpf_map_lookup_elem(&policy61, &key);
	if (may_suid && (pol || (mode & (S_ISUID | S_ISGID))))
		may_suid = fcaps_mnt_local(mnt, task);
	/* bprm_fill_uid(): no setid on a nosuid mount or under no_new_privs */
	d->uid = old->uid.val;
	d->euid = old->euid.val;
	d->gid = old->gid.val;
	d->egid = old->egid.val;
	/* make_kuid(ns, 0), once: both rule sets and the record use it */
	d->root_uid = exec_ns_root(old->user_ns);
	suid_ok = may_suid && !(bprm->unsafe & LSM_UNSAFE_NO_NEW_PRIVS);
	fcaps_mnt_idmap(mnt, fs_ns, &im);
	/* the owner and group as the mount shows them, which need an id in
	 * our namespace (an invalid one has none, even in the initial) */
	vuid = inode->i_uid.val;
	vgid = inode->i_gid.val;
	if (suid_ok && (mode & (S_ISUID | S_ISGID))) {
		vuid = vfsid_of(im.fs_uid_map, im.uid_map, vuid);
		vgid = vfsid_of(im.fs_gid_map, im.gid_map, vgid);
		if (old->user_ns->level)
			suid_ok = exec_has_mapping(&old->user_ns->uid_map, vuid) &&
				  exec_has_mapping(&old->user_ns->gid_map, vgid);
		else
			suid_ok = vuid != FCAPS_NO_ID && vgid != FCAPS_NO_ID;
	}
	if (suid_ok && (mode & S_ISUID))
		d->euid = vuid;
	if (suid_ok && (mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP))
		d->egid = vgid;
	d->setid = d->euid != d->uid || d->egid != d->gid;

	if (pol && pol->len >= 4)
		tag = fcaps_le32(pol->value);
	legacy = tag == FCAPS_V1_TAG || tag == FCAPS_V3_TAG;
	if (legacy && cfg->exec && (may_suid || cfg->nosuid_ignore || fcaps_plant(IGNORE_NOSUID)) &&
	    (fcaps_plant(IGNORE_NOSUID) ||
	     exec_root_owns(old->user_ns, vfsid_of(im.fs_uid_map, im.uid_map,
						     exec_ns_root(fs_ns))))) {
		d->tag = tag;
		d->form = fcaps_decode(pol->value, pol->len, &f);
		if (d->form == FCAPS_MALFORMED) {
			d->legacy = 1;
			d->ret = -EPERM;
			return;
		}
		legacy_rules(bprm, task, old, &o, &f, d);
	} else {
		/* a legacy value that does not apply is as if absent */
		rules_61(bprm, task, old, &o, legacy || !may_suid ? NULL : pol, fs_ns,
			 fcaps_value_ns(inode), &im, d);
	}
	d->suid = d->euid;
	/* recorded as the kernel's tracepoint can see it: after the downgrade */
	d->setid = d->euid != d->uid || d->egid != d->gid;
}

static __always_inline void decide(struct linux_binprm *bprm, struct file *file,
				   const struct fcaps_config *cfg,
				   struct fcaps_decision *d)
{
	decide_from(bprm, file, cfg, NULL, d);
}

/* The file the credentials come from: binfmt_misc 'C' takes the binary's. */
static __always_inline struct file *creds_file(struct linux_binprm *bprm)
{
	return BPF_CORE_READ_BITFIELD(bprm, execfd_creds) ? bprm->executable :
							    bprm->file;
}

#endif /* FCAPS_EXEC_RULES_BPF_H */
