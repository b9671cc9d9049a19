// SPDX-License-Identifier: GPL-2.0
/*
 * The reducing half of the 2006 rules, which BPF can enforce: when the
 * legacy rules decide an exec, the predicted effective set becomes a
 * ceiling on the new credentials, and `capable` refuses any capability
 * above it. Root running a capped file thus loses what the kernel path
 * would have taken from it; what the kernel path would have *granted*
 * stays out of reach (BPF cannot write credentials).
 *
 * Capabilities belong to a struct cred, so the ceiling is keyed by the
 * credentials: threads share it, copies (prepare_creds, override_creds)
 * inherit it, and it goes when they are freed. Enforce mode only.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "ceiling.bpf.h"

#define PTRACE_MODE_FSCREDS 0x08	/* include/linux/ptrace.h */
#define PR_SET_SECUREBITS 28		/* include/uapi/linux/prctl.h */
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_RAISE 2
#define CAP_SETPCAP 8
#define CAP_SYS_RAWIO 17

/* A copy of capped credentials is capped; refuse the copy otherwise. */
SEC("lsm/cred_prepare")
int BPF_PROG(fcaps_ceiling_copy, struct cred *new, const struct cred *old,
	     gfp_t gfp, int ret)
{
	__u64 okey = ceiling_key(old), nkey = ceiling_key(new);
	struct fcaps_ceiling *c;

	if (ret)
		return ret;
	c = fcaps_plant(NO_COPY) ? NULL : ceiling_of(okey);
	if (!c) {
		/* nothing left at this address may cap the new credentials
		 * (there is nearly never one: the bucket says so first) */
		if (ceiling_maybe(nkey))
			ceiling_drop(nkey);
		return 0;
	}
	if (ceiling_set(nkey, c))
		return -ENOMEM;	/* fail closed */
	return 0;
}

/*
 * keyctl's session-to-parent allocates blank credentials here and fills
 * them from the parent's own later, in cred_transfer, which cannot refuse:
 * a full map there would leave a capped parent uncapped. So the slot is
 * taken now, while refusing is possible: a reservation, which allows
 * nothing, until the transfer overwrites or drops it. A parent that never
 * returns to user mode holds its reservation; at most
 * FCAPS_MAX_RESERVED are pending, so parked parents cannot fill the map
 * (past that keyctl gets ENOMEM).
 */
#define FCAPS_MAX_RESERVED 256
__u64 ceiling_reserved_live;

/* pA outside pP: no ceiling the rules compute looks like this */
static const struct fcaps_ceiling reserved = { .pa = ~0ULL };

/* @key's reservation, if it holds one, no longer pending: its entry */
static __always_inline struct fcaps_ceiling *reservation_take(__u64 key)
{
	struct fcaps_ceiling *r;

	if (!*(volatile __u64 *)&ceiling_reserved_live)
		return NULL;
	r = bpf_map_lookup_elem(&ceilings, &key);
	if (!r || r->pp || r->pa != reserved.pa)
		return NULL;
	__sync_fetch_and_sub(&ceiling_reserved_live, 1);
	return r;
}

SEC("lsm/cred_alloc_blank")
int BPF_PROG(fcaps_ceiling_reserve, struct cred *cred, gfp_t gfp, int ret)
{
	if (ret)
		return ret;
	if (__sync_fetch_and_add(&ceiling_reserved_live, 1) >= FCAPS_MAX_RESERVED ||
	    ceiling_set(ceiling_key(cred), &reserved)) {
		__sync_fetch_and_sub(&ceiling_reserved_live, 1);
		return -ENOMEM;
	}
	return 0;
}

/* the blank credentials take the parent's ceiling, written over their
 * reservation (nothing can fail there), or none */
SEC("lsm/cred_transfer")
int BPF_PROG(fcaps_ceiling_transfer, struct cred *new, const struct cred *old)
{
	__u64 nkey = ceiling_key(new);
	struct fcaps_ceiling *c = ceiling_of(ceiling_key(old)), *r = reservation_take(nkey);

	if (c && r) {
		*r = *c;
		ceiling_front_stale(nkey);
	} else if (c) {
		ceiling_set(nkey, c);	/* allocated before fcaps was loaded */
	} else {
		ceiling_drop(nkey);
	}
	return 0;
}

/*
 * The last reference is gone: drop the ceiling before the address can be
 * reused. Not the cred_free hook: 6.1 skips it when no LSM has a cred
 * blob (capability and bpf have none), so it never runs here.
 */
SEC("fentry/__put_cred")
int BPF_PROG(fcaps_ceiling_free, struct cred *cred)
{
	__u64 key = ceiling_key(cred);

	/* most credentials never had one: their bucket says so, with no lock */
	if (ceiling_maybe(key)) {
		reservation_take(key);		/* keyctl given up midway */
		ceiling_drop(key);
	}
	return 0;
}

/*
 * capset(2) narrows pE, pP and pA; the ceiling follows as the kernel would,
 * in either mode. Adding to pI anything outside pI and the capped pP needs
 * CAP_SETPCAP, which cap_capset() asks cap_capable() directly: refused
 * here without it, when enforcing.
 */
SEC("lsm/capset")
int BPF_PROG(fcaps_ceiling_capset, struct cred *new, const struct cred *old,
	     const kernel_cap_t *effective, const kernel_cap_t *inheritable,
	     const kernel_cap_t *permitted, int ret)
{
	struct fcaps_ceiling *c;

	if (ret)
		return ret;
	c = fcaps_plant(NO_CAPSET) ? NULL : ceiling_of(ceiling_key(new));
	if (!c)
		return 0;
	if ((fcaps_cap64(*inheritable) & ~(fcaps_cap64(old->cap_inheritable) |
					    (fcaps_cap64(old->cap_permitted) & c->pp))) &&
	    !((fcaps_cap64(old->cap_effective) & c->pe) >> CAP_SETPCAP & 1) && enforcing())
		return -EPERM;
	c->pp &= fcaps_cap64(*permitted);
	c->pe = fcaps_cap64(*effective) & c->pp;
	c->pa &= c->pp & fcaps_cap64(*inheritable);
	ceiling_front_stale(ceiling_key(new));
	return 0;
}

/*
 * prctl() paths of cap_task_prctl() that read live sets or call
 * cap_capable() directly, then commit before any LSM runs: raising an
 * ambient capability needs it in pP (and puts it in the ceiling's pA),
 * setting securebits CAP_SETPCAP.
 * fmod_ret runs before the LSMs and can refuse the call.
 */
SEC("fmod_ret/security_task_prctl")
int BPF_PROG(fcaps_ceiling_prctl, int option, unsigned long arg2, unsigned long arg3,
	     unsigned long arg4, unsigned long arg5, int ret)
{
	const struct cred *cred = bpf_get_current_task_btf()->cred;
	struct fcaps_ceiling *c;

	if (ret)
		return ret;
	c = ceiling_of(ceiling_key(cred));
	if (!c || !enforcing())
		return 0;
	if (option == PR_CAP_AMBIENT && arg2 == PR_CAP_AMBIENT_RAISE && arg3 <= FCAPS_LAST_CAP) {
		if (!((c->pp >> arg3) & 1) && !fcaps_plant(AMBIENT_LIVE))
			return -EPERM;
		/*
		 * The kernel path's pA now holds it (if cap_task_prctl() lets
		 * it): the next exec reads pA through this ceiling. Where the
		 * raise then fails, pA lacks it and the ceiling only allows.
		 */
		c->pa |= 1ULL << arg3;
	}
	if (option == PR_SET_SECUREBITS && !((c->pe >> CAP_SETPCAP) & 1))
		return -EPERM;
	return 0;
}

SEC("lsm/capable")
int BPF_PROG(fcaps_ceiling_capable, const struct cred *cred,
	     struct user_namespace *ns, int cap, unsigned int opts, int ret)
{
	__u64 pp = ~0ULL, pe = ~0ULL;

	if (ret)
		return ret;
	/* only where cap_capable() reads pE: not a namespace the euid owns */
	if (!ceiling_sets(ceiling_key(cred), &pp, &pe) || !enforcing() || cap < 0 ||
	    cap > FCAPS_LAST_CAP || fcaps_ns_walk(cred, ns) != FCAPS_NS_OWN_PE)
		return 0;
	return (pe >> cap) & 1 ? 0 : -EPERM;
}

/*
 * New credentials in a new user namespace hold every capability there, on
 * the kernel path as well: the ceiling of the credentials they were copied
 * from does not follow them. What does follow, on the kernel path, is
 * whether the creator could set file capabilities: 6.1 keeps it in
 * ns->parent_could_setfcap, read from the live pE, and lets the process
 * map its own euid (root) as the namespace's root only then
 * (verify_root_map()). A capped creator whose ceiling lacks CAP_SETFCAP
 * marks the namespace (ns_marks), and lsm/file_open refuses it the write
 * the kernel path refuses: root mapped as root would hold every
 * capability over root's files, write host-wide file capabilities among
 * them.
 */
__u64 ns_marks_live, ns_marks_lost;

static __always_inline int ns_mark(__u64 key)
{
	__u8 one = 1;
	int err;

	__sync_fetch_and_add(&ns_marks_live, 1);
	err = bpf_map_update_elem(&ns_marks, &key, &one, BPF_NOEXIST);
	if (err)
		__sync_fetch_and_sub(&ns_marks_live, 1);
	return err;
}

static __always_inline int ns_unmark(__u64 key)
{
	if (!*(volatile __u64 *)&ns_marks_live || bpf_map_delete_elem(&ns_marks, &key))
		return 0;
	__sync_fetch_and_sub(&ns_marks_live, 1);
	return 1;
}

/* The creator's mark waits under its credentials, so that a namespace
 * whose mark cannot be kept is never created (ENOMEM). */
SEC("lsm/userns_create")
int BPF_PROG(fcaps_ceiling_userns, const struct cred *cred, int ret)
{
	struct fcaps_ceiling *c;

	if (ret)
		return ret;
	c = ceiling_of(ceiling_key(cred));
	if (!c || !enforcing() || !fcaps_has_cap(cred->cap_effective, CAP_SETFCAP) ||
	    (c->pe >> CAP_SETFCAP) & 1)
		return 0;
	return ns_mark((__u64)cred) ? -ENOMEM : 0;
}

SEC("fexit/create_user_ns")
int BPF_PROG(fcaps_ceiling_userns_made, struct cred *new, int ret)
{
	__u64 key = ceiling_key(new);

	/* the new credentials hold every capability in the new namespace */
	if (ceiling_maybe(key))
		ceiling_drop(key);
	/* the slot the creator's mark held goes to the namespace's */
	if (!ns_unmark((__u64)new) || ret)
		return 0;
	if (ns_mark((__u64)new->user_ns)) {
		/* and the slow path of lsm/file_open for good */
		__sync_fetch_and_add(&ns_marks_lost, 1);
		__sync_fetch_and_add(&ns_marks_live, 1);
	}
	return 0;
}

/*
 * A namespace is freed: its address can be reused. Not __put_user_ns():
 * free_user_ns() frees, in the same loop, each parent whose last reference
 * was the child's, without calling it for them. This runs once for each.
 */
SEC("fentry/retire_userns_sysctls")
int BPF_PROG(fcaps_ceiling_userns_gone, struct user_namespace *ns)
{
	ns_unmark((__u64)ns);
	return 0;
}

/*
 * Mapping below vm.mmap_min_addr (a NULL dereference in the kernel made
 * harmless) needs CAP_SYS_RAWIO, which cap_mmap_addr() asks cap_capable()
 * directly, with the live pE: lsm/capable never sees it. This hook runs
 * after it, for every mmap: the bucket first (one load: nobody capped
 * here), then the bound (a capped process maps often, nearly always
 * above it), and the ceiling only for an address below. Only credentials
 * in the initial namespace get here (cap_mmap_addr() refuses the others),
 * where cap_capable() reads pE.
 */
extern const void dac_mmap_min_addr __ksym;	/* no BTF: a plain global */

SEC("lsm/mmap_addr")
int BPF_PROG(fcaps_ceiling_mmap_addr, unsigned long addr, int ret)
{
	__u64 key = ceiling_key(bpf_get_current_task_btf()->cred);
	unsigned long min;
	struct fcaps_ceiling *c;

	if (ret || !ceiling_maybe(key))
		return ret;
	if (bpf_probe_read_kernel(&min, sizeof(min), &dac_mmap_min_addr))
		min = ~0UL;	/* fail closed: every address is low */
	if (addr >= min)
		return 0;
	c = fcaps_plant(NO_MMAP_ADDR) ? NULL : ceiling_of(key);
	if (!c || !enforcing() || (c->pe >> CAP_SYS_RAWIO) & 1)
		return 0;
	return -EPERM;
}

/*
 * cap_ptrace_access_check() lets a tracer whose pP (pE for FSCREDS) holds
 * the tracee's pP in the same namespace pass without CAP_SYS_PTRACE, a
 * test of live sets that lsm/capable never sees: take it again with the
 * sets the ceiling leaves. Across namespaces ns_capable() decides, and
 * lsm/capable has already capped it.
 */
SEC("lsm/ptrace_access_check")
int BPF_PROG(fcaps_ceiling_ptrace, struct task_struct *child, unsigned int mode, int ret)
{
	const struct cred *cred = bpf_get_current_task_btf()->cred;
	const struct cred *tcred = child->real_cred;
	__u64 mine, eff, theirs;
	struct fcaps_ceiling *c, *tc;

	if (ret)
		return ret;
	c = ceiling_of(ceiling_key(cred));
	if (!c || !enforcing() || tcred->user_ns != cred->user_ns)
		return 0;
	eff = fcaps_cap64(cred->cap_effective) & c->pe;
	mine = mode & PTRACE_MODE_FSCREDS ? eff : fcaps_cap64(cred->cap_permitted) &
	       (fcaps_plant(PTRACE_LIVE) ? ~0ULL : c->pp);
	/* a capped tracee's pP on the kernel path is its capped one */
	theirs = fcaps_cap64(tcred->cap_permitted);
	tc = ceiling_of(ceiling_key(tcred));
	if (tc)
		theirs &= tc->pp;
	if (!(theirs & ~mine) || (eff >> CAP_SYS_PTRACE) & 1)
		return 0;
	return -EPERM;
}

/*
 * PTRACE_TRACEME: cap_ptrace_traceme() lets the parent trace its child
 * when the child's pP is within the parent's (in one namespace), or the
 * parent holds CAP_SYS_PTRACE in the child's: live sets again, which the
 * capability module compares before any LSM. Taken again with the sets
 * the ceilings leave both.
 */
SEC("lsm/ptrace_traceme")
int BPF_PROG(fcaps_ceiling_traceme, struct task_struct *parent, int ret)
{
	const struct cred *cred = parent->real_cred;
	const struct cred *child = bpf_get_current_task_btf()->cred;
	__u64 parent_pp, parent_pe, child_pp, child_pe = 0;

	if (ret || !fcaps_ceilings_live() || !enforcing())
		return ret;
	parent_pp = fcaps_cap64(cred->cap_permitted);
	parent_pe = fcaps_cap64(cred->cap_effective);
	child_pp = fcaps_cap64(child->cap_permitted);
	fcaps_capped_sets(cred, &parent_pp, &parent_pe);
	fcaps_capped_sets(child, &child_pp, &child_pe);
	if (cred->user_ns == child->user_ns && !(child_pp & ~parent_pp))
		return 0;
	if (fcaps_ns_capable_from(cred, cred->user_ns, parent_pe, child->user_ns,
				  CAP_SYS_PTRACE))
		return 0;
	return -EPERM;
}

char LICENSE[] SEC("license") = "GPL";
