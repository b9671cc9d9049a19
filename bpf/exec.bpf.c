// SPDX-License-Identifier: GPL-2.0
/*
 * Exec: decide what SEMANTICS section 2 decides for the file the new
 * credentials come from, from the policy map, and predict the credentials
 * the kernel would give (6.1's rules for a value that is not legacy). BPF
 * cannot raise capabilities; it can refuse the exec and set AT_SECURE.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "ceiling.bpf.h"

/* One event per execve, however many interpreters it goes through. */
SEC("lsm/bprm_creds_for_exec")
int BPF_PROG(fcaps_exec_begin, struct linux_binprm *bprm, int ret)
{
	struct fcaps_config *cfg = fcaps_config();

	if (!cfg || cfg->record == FCAPS_RECORD_NONE)
		return ret;
	fcaps_exec_seq_set(bpf_get_current_task_btf()->pid, fcaps_new_seq());
	return ret;
}

/* exec_rules.bpf.h's namespace walks: NULL is no query */
__noinline int fcaps_exec_in_userns(const struct fcaps_ns_query *q)
{
	return q && fcaps_in_userns(q->ns, q->other);
}

__noinline int fcaps_exec_root_owns(const struct fcaps_ns_query *q)
{
	return q && fcaps_root_owns(q->ns, q->id);
}

__noinline int fcaps_exec_has_mapping(const struct fcaps_ns_query *q)
{
	return q && fcaps_has_mapping(q->other, q->id);
}

__noinline __u32 fcaps_exec_map_down(const struct fcaps_ns_query *q)
{
	return q ? fcaps_map_down_(q->ns, q->id, 0) : FCAPS_NO_ID;
}

extern const void nop_mnt_idmap __ksym __weak;

__noinline int fcaps_idmap_of(struct fcaps_idmap *m)
{
	__u64 idmap, fs_ns;

	if (!m || !m->idmap)
		return 0;
	idmap = m->idmap;
	fs_ns = m->fs_ns;
	if (bpf_core_field_exists(struct vfsmount, mnt_userns)) {
		/* no_idmapping() */
		if (!fcaps_ns_read(idmap, level) || idmap == fs_ns)
			return 0;
		m->uid_map = idmap + bpf_core_field_offset(struct user_namespace, uid_map);
		m->gid_map = idmap + bpf_core_field_offset(struct user_namespace, gid_map);
	} else {
		if (idmap == (__u64)&nop_mnt_idmap)
			return 0;
		/* without the symbol (no KALLSYMS_ALL), the nop idmap is
		 * known by its maps: no extents */
		if (!(__u64)&nop_mnt_idmap &&
		    !BPF_CORE_READ((struct mnt_idmap___6_12 *)idmap, uid_map.nr_extents))
			return 0;
		m->uid_map = idmap + bpf_core_field_offset(struct mnt_idmap___6_12, uid_map);
		m->gid_map = idmap + bpf_core_field_offset(struct mnt_idmap___6_12, gid_map);
	}
	if (fcaps_ns_read(fs_ns, level)) {
		m->fs_uid_map = fs_ns + bpf_core_field_offset(struct user_namespace, uid_map);
		m->fs_gid_map = fs_ns + bpf_core_field_offset(struct user_namespace, gid_map);
	}
	return 0;
}

__noinline __u32 fcaps_vfsid(const struct fcaps_idmap_query *q)
{
	__u32 id;

	if (!q)
		return FCAPS_NO_ID;
	id = q->id;
	if (q->fs_map) {
		id = fcaps_map_id_up(q->fs_map, id);	/* from_kuid(fs_ns, id) */
		if (id == FCAPS_NO_ID)
			return id;
	}
	return fcaps_map_id_down(q->mnt_map, id, 0);
}

__noinline int fcaps_exec_tracer_capable(const struct fcaps_tracer_query *q)
{
	const struct cred *c;
	enum fcaps_ns_verdict v;
	__u64 pe = 0, pp = 0;

	if (!q)
		return 0;
	c = (const struct cred *)q->cred;
	bpf_core_read(&pe, sizeof(pe), &c->cap_effective);
	ceiling_sets(q->key, &pp, &pe);
	v = fcaps_ns_walk_of((unsigned long)BPF_CORE_READ(c, user_ns), BPF_CORE_READ(c, euid.val),
			     q->ns, 1);
	return v == FCAPS_NS_OWNER || (v == FCAPS_NS_OWN_PE && (pe >> CAP_SYS_PTRACE) & 1);
}

/*
 * Record @d (its fields decided) as the current exec's, under the seq
 * exec_begin gave it. A function of its own, which the verifier checks
 * once, not at the end of every path through the decision: inline, the
 * enforcing program came near the verifier's step limit, and a planted
 * variant went past it.
 */
__noinline int fcaps_exec_record(struct fcaps_decision *d)
{
	struct fcaps_config *cfg = fcaps_config();
	int err;

	if (!d || !cfg)
		return 0;
	d->pid = bpf_get_current_task_btf()->pid;
	d->seq = fcaps_exec_seq_get(d->pid);
	if (!fcaps_recording(cfg, d->ret)) {
		/* decided, not to be recorded (--record denied): marked as
		 * done all the same, for fcaps_exec_refused */
		if (d->seq)
			fcaps_exec_slot(d->pid)->recorded = d->seq;
		return 0;
	}
	if (!d->seq) {
		/* begun before the load, or its slot taken by another exec */
		d->seq = fcaps_new_seq();
		fcaps_exec_seq_set(d->pid, d->seq);
	}
	d->hook = FCAPS_HOOK_EXEC;
	err = fcaps_record(&decisions, d);
	fcaps_count(FCAPS_HOOK_EXEC, d->ret, err);
	/* in the exec's own slot, not the ring, whose reader may have freed
	 * it since: one record (or one loss) an exec */
	fcaps_exec_slot(d->pid)->recorded = d->seq;
	return 0;
}

/*
 * Shadow mode's record: runs for the script and again for each
 * interpreter, so the last record is the final binary's. Nothing before it
 * can refuse the exec (the capability module has no bprm_check_security
 * hook), so every exec gets a BPF decision here. In enforce mode the
 * program that enforces records what it enforces (below).
 */
SEC("lsm/bprm_check_security")
int BPF_PROG(fcaps_exec_check, struct linux_binprm *bprm, int ret)
{
	struct fcaps_config *cfg = fcaps_config();
	struct fcaps_decision d = {};
	struct file *file;

	if (!cfg || cfg->record == FCAPS_RECORD_NONE || cfg->mode == FCAPS_MODE_ENFORCE)
		return ret;
	file = creds_file(bprm);
	if (!file)
		return ret;
	decide(bprm, file, cfg, &d);
	fcaps_exec_record(&d);
	return ret;
}

/*
 * Enforcement waits for the final binary and decides again on the file
 * the kernel takes the credentials from, never on a stored record: a
 * script's own value must not refuse or mark an exec that the interpreter
 * decides, and nothing left behind by another exec can leak in. The same
 * decision, from the sets a ceiling leaves the old credentials, caps the
 * new ones (ceiling.bpf.h) and, @rec, is the exec's record: one program
 * and one decision an exec. An exec refused before it is recorded by
 * fcaps_exec_refused.
 */
static __always_inline int exec_enforce(struct linux_binprm *bprm, struct file *file,
					int ret, const int rec)
{
	struct fcaps_config *cfg = fcaps_config();
	const struct cred *new = bprm->cred;
	__u64 key = ceiling_key(new);
	struct fcaps_decision d = {};
	struct fcaps_ceiling *old;
	int refuse, secure, contradicted;

	if (ret)
		return ret;
	if (!cfg || cfg->mode != FCAPS_MODE_ENFORCE) {
		if (ceiling_maybe(key))
			ceiling_drop(key);
		return 0;
	}
	old = ceiling_of(key);
	decide_from(bprm, file, cfg, old, &d);
	/*
	 * 6.1's own formats are 6.1's to refuse: the capability module has
	 * done it already, before this program (and BPF cannot see every
	 * value 6.1 accepts, see FCAPS_LEN_UNREADABLE). So a 6.1 value BPF
	 * predicts refused is one 6.1 ran: a prediction the kernel
	 * contradicts. Credentials already capped are not let out of their
	 * ceiling by it: the exec is refused (SEMANTICS 7, fail closed).
	 */
	contradicted = d.ret && !d.legacy && old;
	if (contradicted)
		d.ret = -EPERM;
	if (rec && cfg->record != FCAPS_RECORD_NONE)
		fcaps_exec_record(&d);
	refuse = d.ret && (d.legacy || contradicted);
	secure = d.secureexec;
	if (fcaps_plant(ENFORCE_EXEC))
		refuse = secure = 0;
	if (d.ret) {
		if (old)
			ceiling_drop(key);
		if (!refuse)
			return 0;
		/* an errno, as the verifier (6.12's checks the range) sees it */
		return d.ret >= -MAX_ERRNO && d.ret < 0 ? d.ret : -EPERM;
	}
	if (secure)
		bpf_bprm_opts_set(bprm, BPF_F_BPRM_SECUREEXEC);
	return ceiling_exec(new, key, old, &d) ? -ENOMEM : 0;
}

SEC("lsm/bprm_creds_from_file")
int BPF_PROG(fcaps_exec_enforce, struct linux_binprm *bprm, struct file *file, int ret)
{
	return exec_enforce(bprm, file, ret, 1);
}

/* The current exec's seq (0: begun before the load, or its slot taken
 * by another tid), and in @done whether a program decided it already
 * (recorded, lost, or not to be recorded) */
static __always_inline __u64 exec_seq(int *done)
{
	__u32 tid = bpf_get_current_task_btf()->pid;
	__u64 seq = fcaps_exec_seq_get(tid);

	*done = seq && fcaps_exec_slot(tid)->recorded == seq;
	return seq;
}

/*
 * An exec the capability module refuses (a value in 6.1's formats, or the
 * patched kernel's own rules switched on beside BPF) never reaches
 * fcaps_exec_enforce: a module's refusal ends the hook (and a refusal by
 * an earlier BPF program ends that program's turn). In enforce mode
 * its record is taken here, once the call has returned; the exec's
 * credentials and file are those the refusal saw. So is, in shadow mode,
 * that of an exec whose last check ran in enforce mode (`fcapsctl mode`
 * between the two hooks), which neither of them recorded.
 */
SEC("fexit/security_bprm_creds_from_file")
int BPF_PROG(fcaps_exec_refused, struct linux_binprm *bprm, struct file *file, int ret)
{
	struct fcaps_config *cfg = fcaps_config();
	struct fcaps_decision d = {};
	int enforce, done;
	__u64 seq;

	if (!cfg || cfg->record == FCAPS_RECORD_NONE)
		return 0;
	enforce = cfg->mode == FCAPS_MODE_ENFORCE;
	seq = exec_seq(&done);
	/* in shadow mode only an exec that began in enforce mode, under a
	 * seq of its own: one whose slot another tid took would be recorded
	 * twice (exec_check gave it a new seq) */
	if (done || (enforce ? !ret : !seq))
		return 0;
	decide_from(bprm, file, cfg, enforce ? ceiling_of(ceiling_key(bprm->cred)) : NULL, &d);
	fcaps_exec_record(&d);
	return 0;
}

/* --record none: the decision alone, none of a record's fields computed
 * (fcapsctl load attaches one of the two, and no exec_begin or exec_check) */
SEC("lsm/bprm_creds_from_file")
int BPF_PROG(fcaps_exec_enforce_norec, struct linux_binprm *bprm, struct file *file, int ret)
{
	return exec_enforce(bprm, file, ret, 0);
}

char LICENSE[] SEC("license") = "GPL";
