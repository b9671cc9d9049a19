// SPDX-License-Identifier: GPL-2.0
/*
 * SEMANTICS 3's other ways to signal, under the kill rule and its switch,
 * decided in fmod_ret programs as signals are (signal.bpf.c):
 * - prlimit(2) writing another process's limits: a lowered RLIMIT_CPU or
 *   RLIMIT_FSIZE makes the kernel send SIGXCPU, SIGKILL or SIGXFSZ;
 * - SIGIO and SIGURG to the process an F_SETOWN aimed them at. The sender
 *   is the owner as it was at F_SETOWN: its sets (as its ceiling left
 *   them), namespace and euid are kept by file here, since BPF can hold
 *   no reference to its credentials. A namespace that dies is forgotten
 *   by the owners that named it, so that its address, reused, names none
 *   of them.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "pair_rule.bpf.h"

#define LSM_PRLIMIT_WRITE	2
#define FCAPS_MAX_OWNERS	65536

/* Decide, record and enforce as signal.bpf.c's decide() does */
#define DECIDE_CALL(cfg, hook, tid, target, sig, rule_expr, record_expr)	\
	({									\
		int __ret = 0;							\
		if ((cfg)->record == FCAPS_RECORD_ALL)				\
			__ret = (record_expr);					\
		else if ((cfg)->mode == FCAPS_MODE_ENFORCE ||			\
			 (cfg)->record == FCAPS_RECORD_DENIED)			\
			__ret = (rule_expr);					\
		if (__ret && (cfg)->record == FCAPS_RECORD_DENIED)		\
			__ret = (record_expr);					\
		if (__ret && (cfg)->mode == FCAPS_MODE_ENFORCE &&		\
		    (cfg)->kernel_records)					\
			fcaps_call_end(tid);					\
		(cfg)->mode == FCAPS_MODE_ENFORCE ? __ret : 0;			\
	})

SEC("fmod_ret/security_task_prlimit")
int BPF_PROG(fcaps_prlimit, const struct cred *cred, const struct cred *tcred,
	     unsigned int flags, int ret)
{
	struct fcaps_config *cfg = fcaps_config();
	struct fcaps_call_ids ids = {};

	/* reading limits stays free */
	if (!cfg || !(flags & LSM_PRLIMIT_WRITE))
		return 0;
	ids.pid = bpf_get_current_task_btf()->pid;
	return DECIDE_CALL(cfg, FCAPS_HOOK_PRLIMIT, ids.pid, 0, flags,
			   pair_rule(1, NULL, cred, tcred),
			   record_pair(FCAPS_HOOK_PRLIMIT, &ids, flags, cred, tcred, NULL, cfg));
}

/* The owner of a file's SIGIO, as it was at F_SETOWN */
struct fcaps_owner {
	__u64 pp, pe;			/* as its ceiling left them */
	__u64 ns;			/* struct user_namespace *; 0 once gone */
	__u32 euid, level;
	__u32 securebits, pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FCAPS_MAX_OWNERS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64);		/* struct file * */
	__type(value, struct fcaps_owner);
} sigio_owners SEC(".maps");

/* as ceilings_live; an owner that did not fit makes every unknown owner
 * one that may signal nobody (fail closed) */
__u64 owners_live, owners_lost;

static __always_inline void owner_of(const struct cred *cred, struct fcaps_owner *o)
{
	o->pp = fcaps_cap64(cred->cap_permitted);
	o->pe = fcaps_cap64(cred->cap_effective);
	fcaps_capped_sets(cred, &o->pp, &o->pe);
	o->ns = (__u64)cred->user_ns;
	o->level = cred->user_ns->level;
	o->euid = cred->euid.val;
	o->securebits = cred->securebits;
}

/*
 * The same of a file's opener, for an owner set before the load, reached
 * by arithmetic (probed reads). It has no ceiling: a file opened after the
 * load has its owner set after it too.
 */
static __always_inline void owner_of_opener(const struct cred *cred, struct fcaps_owner *o)
{
	struct user_namespace *ns = BPF_CORE_READ(cred, user_ns);

	o->pp = o->pe = 0;
	bpf_probe_read_kernel(&o->pp, sizeof(o->pp), &cred->cap_permitted);
	bpf_probe_read_kernel(&o->pe, sizeof(o->pe), &cred->cap_effective);
	o->ns = (__u64)ns;
	o->level = BPF_CORE_READ(ns, level);
	o->euid = BPF_CORE_READ(cred, euid.val);
	o->securebits = BPF_CORE_READ(cred, securebits);
}

/* From the load on, whether armed or not: an owner set while a load runs
 * is known once it is armed */
SEC("lsm/file_set_fowner")
int BPF_PROG(fcaps_sigio_owner, struct file *file)
{
	struct fcaps_owner o;
	__u64 key = (__u64)file;

	owner_of(bpf_get_current_task_btf()->cred, &o);
	if (!bpf_map_update_elem(&sigio_owners, &key, &o, BPF_EXIST))
		return 0;
	__sync_fetch_and_add(&owners_live, 1);
	if (bpf_map_update_elem(&sigio_owners, &key, &o, BPF_NOEXIST)) {
		__sync_fetch_and_sub(&owners_live, 1);
		owners_lost = 1;
	}
	return 0;
}

SEC("lsm/file_free_security")
int BPF_PROG(fcaps_sigio_owner_free, struct file *file)
{
	__u64 key = (__u64)file;

	if (*(volatile __u64 *)&owners_live && !bpf_map_delete_elem(&sigio_owners, &key))
		__sync_fetch_and_sub(&owners_live, 1);
	return 0;
}

static long forget_ns(struct bpf_map *map, __u64 *key, struct fcaps_owner *o, __u64 *ns)
{
	if (o->ns == *ns)
		o->ns = 0;
	return 0;
}

/* as fcaps_ceiling_userns_gone: once for every namespace freed */
SEC("fentry/retire_userns_sysctls")
int BPF_PROG(fcaps_sigio_ns_gone, struct user_namespace *ns)
{
	__u64 gone = (__u64)ns;

	if (*(volatile __u64 *)&owners_live)
		bpf_for_each_map_elem(&sigio_owners, forget_ns, &gone, 0);
	return 0;
}

/* cap_capable() for the owner @o in @ns (fcaps_ns_walk() from the values
 * kept): 1 if it holds @cap there */
static __always_inline int owner_capable(const struct fcaps_owner *o, struct user_namespace *ns,
					 int cap)
{
	for (int i = 0; i < 33 && ns; i++) {	/* 32 nested namespaces at most */
		if ((__u64)ns == o->ns)
			return (o->pe >> cap) & 1;
		if (ns->level <= o->level)
			return 0;
		if ((__u64)ns->parent == o->ns && ns->owner.val == o->euid)
			return 1;
		ns = ns->parent;
	}
	return 0;
}

/* The kill rule for owner @o and target @tcred, recorded in @r if any */
static __always_inline int owner_rule(const struct fcaps_config *cfg, const struct fcaps_owner *o,
				      const struct cred *tcred, struct fcaps_decision *r)
{
	__u64 target_pp = fcaps_cap64(tcred->cap_permitted), target_pe = 0;
	int same, cap, ret;

	fcaps_capped_sets(tcred, &target_pp, &target_pe);
	same = o->ns == (__u64)tcred->user_ns;
	cap = owner_capable(o, tcred->user_ns, CAP_KILL);
	ret = !cfg->kill || pair_allows(1, o->pp, target_pp, same, cap) ? 0 : -EPERM;
	if (r) {
		r->pp = o->pp;
		r->pe = o->pe;
		r->securebits = o->securebits;
		r->target_pp = target_pp;
		r->same_userns = same;
		r->cap_in_target_ns = cap;
	}
	return ret;
}

static __always_inline int sigio_record(const struct fcaps_config *cfg,
					const struct fcaps_owner *o, struct task_struct *tsk,
					int sig)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 seq = fcaps_new_seq();
	struct fcaps_decision *r = fcaps_free_slot(&decisions, seq);
	int ret = owner_rule(cfg, o, tsk->real_cred, r);

	if (!r) {
		fcaps_count(FCAPS_HOOK_SIGIO, ret, 1);
		return ret;
	}
	r->hook = FCAPS_HOOK_SIGIO;
	r->pid = task->pid;
	r->target = tsk->pid;
	r->target_tgid = tsk->tgid;
	r->sig = sig;
	fcaps_call_commit(r, seq, ret);
	if (cfg->kernel_records)
		fcaps_call_begin(task->pid, FCAPS_HOOK_SIGIO, tsk->pid, sig, seq);
	fcaps_count(FCAPS_HOOK_SIGIO, ret, 0);
	return ret;
}

/* 6.12 allocates a file's fown_struct on demand, with a pointer back */
struct fown_struct___backptr {
	struct file *file;
};

/* The file @fown belongs to: embedded in it (6.1), or pointing back to it */
static __always_inline struct file *fown_file(struct fown_struct *fown)
{
	if (bpf_core_field_exists(struct fown_struct___backptr, file))
		return BPF_CORE_READ((struct fown_struct___backptr *)fown, file);
	return (void *)((unsigned long)fown - bpf_core_field_offset(struct file, f_owner));
}

SEC("fmod_ret/security_file_send_sigiotask")
int BPF_PROG(fcaps_sigio, struct task_struct *tsk, struct fown_struct *fown, int sig, int ret)
{
	struct fcaps_config *cfg = fcaps_config();
	struct fcaps_owner *known, o;
	struct file *file;
	__u64 key;

	if (!cfg)
		return 0;
	file = fown_file(fown);
	key = (__u64)file;
	known = bpf_map_lookup_elem(&sigio_owners, &key);
	if (known) {
		o = *known;
	} else if (*(volatile __u64 *)&owners_lost) {
		/* an owner that could not be kept: it may signal nobody */
		o = (struct fcaps_owner){ .level = 33 };
	} else {
		/* set before the load: the opener is the best account of it */
		owner_of_opener(BPF_CORE_READ(file, f_cred), &o);
	}
	return DECIDE_CALL(cfg, FCAPS_HOOK_SIGIO, bpf_get_current_task_btf()->pid, tsk->pid,
			   sig, owner_rule(cfg, &o, tsk->real_cred, NULL),
			   sigio_record(cfg, &o, tsk, sig));
}

char LICENSE[] SEC("license") = "GPL";
