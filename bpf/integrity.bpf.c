// SPDX-License-Identifier: GPL-2.0
/*
 * SEMANTICS 7: BPF enforcement that the processes it caps cannot switch
 * off. Changing it needs CAP_SYS_ADMIN in the initial namespace, in pE as
 * the ceiling leaves it: what the kernel path asks of kernel.fcaps.*. A
 * capped root keeps uid 0, so none of this may rest on file permissions.
 *
 * What would change it, and where it is refused:
 * - fcaps' maps, through bpf() or a writable mapping (a read-only one
 *   cannot be made writable: bpf_map_mmap() clears VM_MAYWRITE). Reading
 *   them stays free, and bpftool opens a map read-write even to dump it,
 *   so a caller without the capability that gets a descriptor of one is
 *   marked, by its descriptor table: while marked, it may only read
 *   (bpf() commands that create, change or run anything are refused),
 *   since a program, a map of maps or an iterator would write through
 *   any descriptor, a read-only one included. Marks follow the table's
 *   copies (fork, unshare, exec) and die with it.
 * - fcaps' programs and links: no descriptor of a program; a link cannot
 *   be detached or updated; no program that uses fcaps' maps or replaces
 *   one of its functions is loaded.
 * - the pin directory: nothing in it is removed, renamed, created or
 *   chmod'ed.
 * - knobs that silence the programs: kernel.ftrace_enabled (every
 *   trampoline) and debugfs kprobes/enabled (the policy's sync kprobe);
 *   and kernel.modprobe, which needs CAP_SYS_MODULE on both paths (the
 *   kernel runs it with every capability).
 * In shadow mode nothing is refused: each would-be refusal is recorded.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "ceiling.bpf.h"

#define CAP_SYS_MODULE	16
#define PROT_WRITE	0x2
#define MAP_SHARED	0x01
#define DEBUGFS_MAGIC	0x64626720
#define MAX_USED_MAPS	64
#define FCAPS_MAX_HELD	16384

extern const void bpf_map_fops __ksym;
extern const void bpf_prog_fops __ksym;
extern const void bpf_link_fops __ksym;
extern const void proc_sys_file_operations __ksym;
extern const void ftrace_enabled __ksym __weak;
extern const void modprobe_path __ksym __weak;
extern const void fops_kp __ksym __weak;	/* debugfs kprobes/enabled */

/* Descriptor tables (struct files_struct *) that hold one of fcaps' maps,
 * of callers that may not change enforcement */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FCAPS_MAX_HELD);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64);
	__type(value, __u8);
} held SEC(".maps") __weak;

/* as ceilings_live; a mark that did not fit marks every table (fail closed) */
__u64 held_live, held_lost;

/* SEMANTICS 7: CAP_SYS_ADMIN (or @cap) in the initial namespace, in pE as
 * the ceiling leaves it */
static __always_inline int may(const struct cred *cred, int cap)
{
	__u64 pe = fcaps_cap64(cred->cap_effective), pp = 0;

	if (cred->user_ns->level || !((pe >> cap) & 1))
		return 0;
	fcaps_capped_sets(cred, &pp, &pe);
	return (pe >> cap) & 1;
}

static __always_inline const struct cred *current_cred(void)
{
	return bpf_get_current_task_btf()->cred;
}

/* Is the BTF object @btf this load's (every map and program of it has it)? */
static __always_inline int own_btf(const struct btf *btf)
{
	return btf && BPF_CORE_READ(btf, id) == fcaps_own_btf;
}

static __always_inline int own_map(const struct bpf_map *map)
{
	return map && own_btf(BPF_CORE_READ(map, btf));
}

static __always_inline int own_prog(const struct bpf_prog *prog)
{
	return prog && own_btf(BPF_CORE_READ(prog, aux, btf));
}

/* Refuse (enforce) or record (shadow) a change to enforcement */
static __always_inline int refuse(const struct fcaps_config *cfg, __u32 op, __u32 arg)
{
	const struct cred *cred = current_cred();
	__u64 seq, pp = fcaps_cap64(cred->cap_permitted), pe = fcaps_cap64(cred->cap_effective);
	struct fcaps_decision *r = NULL;

	if (cfg->record != FCAPS_RECORD_NONE) {
		seq = fcaps_new_seq();
		r = fcaps_free_slot(&decisions, seq);
	}
	if (r) {
		fcaps_capped_sets(cred, &pp, &pe);
		r->hook = FCAPS_HOOK_INTEGRITY;
		r->pid = bpf_get_current_task_btf()->pid;
		r->op = op;
		r->arg = arg;
		r->uid = cred->uid.val;
		r->euid = cred->euid.val;
		r->pp = pp;
		r->pe = pe;
		fcaps_call_commit(r, seq, -EPERM);
	}
	/* a record that did not fit its ring is counted as lost */
	fcaps_count(FCAPS_HOOK_INTEGRITY, -EPERM, cfg->record != FCAPS_RECORD_NONE && !r);
	return cfg->mode == FCAPS_MODE_ENFORCE ? -EPERM : 0;
}

static __always_inline void mark(__u64 files)
{
	__u8 one = 1;

	if (bpf_map_lookup_elem(&held, &files))
		return;
	__sync_fetch_and_add(&held_live, 1);
	if (bpf_map_update_elem(&held, &files, &one, BPF_NOEXIST)) {
		__sync_fetch_and_sub(&held_live, 1);
		/* cannot say which table holds one: every table does */
		held_lost = 1;
	}
}

static __always_inline int marked(__u64 files)
{
	if (*(volatile __u64 *)&held_lost)
		return 1;
	return *(volatile __u64 *)&held_live && bpf_map_lookup_elem(&held, &files);
}

static __always_inline __u64 current_files(void)
{
	return (__u64)bpf_get_current_task_btf()->files;
}

/* bpf() commands that only read, or create nothing that could write */
static __always_inline int reads_only(int cmd)
{
	switch (cmd) {
	case BPF_MAP_LOOKUP_ELEM:
	case BPF_MAP_GET_NEXT_KEY:
	case BPF_MAP_LOOKUP_BATCH:
	case BPF_OBJ_GET:
	case BPF_OBJ_GET_INFO_BY_FD:
	case BPF_PROG_GET_NEXT_ID:
	case BPF_MAP_GET_NEXT_ID:
	case BPF_BTF_GET_NEXT_ID:
	case BPF_LINK_GET_NEXT_ID:
	case BPF_PROG_GET_FD_BY_ID:
	case BPF_MAP_GET_FD_BY_ID:
	case BPF_BTF_GET_FD_BY_ID:
	case BPF_LINK_GET_FD_BY_ID:
	case BPF_PROG_QUERY:
	case BPF_TASK_FD_QUERY:
	case BPF_ENABLE_STATS:
		return 1;
	}
	return 0;
}

/*
 * Is descriptor @fd of current one of fcaps' links? Or may it be by the
 * time the command looks it up: a table shared with another task, which
 * could swap the descriptor in between, counts as one.
 */
static __always_inline int own_link_fd(__u32 fd)
{
	struct files_struct *files = bpf_get_current_task_btf()->files;
	struct fdtable *fdt = files->fdt;
	struct bpf_link *link;
	struct file *file = NULL;

	if (files->count.counter > 1)
		return 1;
	if (fd >= fdt->max_fds || bpf_probe_read_kernel(&file, sizeof(file), &fdt->fd[fd]) ||
	    !file)
		return 0;
	if (BPF_CORE_READ(file, f_op) != &bpf_link_fops)
		return 0;
	link = BPF_CORE_READ(file, private_data);
	return own_prog(BPF_CORE_READ(link, prog));
}

SEC("lsm/bpf")
int BPF_PROG(fcaps_integrity_bpf, int cmd, union bpf_attr *attr, unsigned int size, int ret)
{
	struct fcaps_config *cfg = fcaps_config();
	__u32 fd;

	if (ret || !cfg || reads_only(cmd) || may(current_cred(), CAP_SYS_ADMIN))
		return ret;
	if (cmd == BPF_LINK_DETACH || cmd == BPF_LINK_UPDATE) {
		fd = cmd == BPF_LINK_DETACH ? attr->link_detach.link_fd : attr->link_update.link_fd;
		if (own_link_fd(fd))
			return refuse(cfg, FCAPS_OP_BPF, cmd);
	}
	return marked(current_files()) ? refuse(cfg, FCAPS_OP_BPF, cmd) : 0;
}

/* A descriptor of one of fcaps' maps: the caller's table is marked */
SEC("lsm/bpf_map")
int BPF_PROG(fcaps_integrity_map, struct bpf_map *map, fmode_t fmode, int ret)
{
	if (ret || !fcaps_config() || !own_map(map) || may(current_cred(), CAP_SYS_ADMIN))
		return ret;
	mark(current_files());
	return 0;
}

struct used_maps_walk {
	struct bpf_map **maps;
	int ours;
};

static long used_map_step(__u32 i, struct used_maps_walk *w)
{
	struct bpf_map *map = NULL;

	if (bpf_probe_read_kernel(&map, sizeof(map), w->maps + i))
		return 1;
	w->ours = own_map(map);
	return w->ours;
}

/* A descriptor of a program: on load (verified), from a pin or an id */
SEC("lsm/bpf_prog")
int BPF_PROG(fcaps_integrity_prog, struct bpf_prog *prog, int ret)
{
	struct fcaps_config *cfg = fcaps_config();
	struct bpf_prog_aux *aux;
	struct used_maps_walk w = {};
	__u32 n;

	if (ret || !cfg || may(current_cred(), CAP_SYS_ADMIN))
		return ret;
	if (own_prog(prog))
		return refuse(cfg, FCAPS_OP_PROG, FCAPS_PROG_OURS);
	aux = prog->aux;
	if (own_prog(aux->dst_prog))
		return refuse(cfg, FCAPS_OP_PROG, FCAPS_PROG_EXTENDS);
	n = aux->used_map_cnt;
	w.maps = aux->used_maps;
	if (w.maps && n)
		bpf_loop(n < MAX_USED_MAPS ? n : MAX_USED_MAPS, used_map_step, &w, 0);
	return w.ours ? refuse(cfg, FCAPS_OP_PROG, FCAPS_PROG_USES_MAP) : 0;
}

/* A descriptor passed over a socket or taken with pidfd_getfd() */
SEC("lsm/file_receive")
int BPF_PROG(fcaps_integrity_receive, struct file *file, int ret)
{
	struct fcaps_config *cfg = fcaps_config();
	const void *fop;

	if (ret || !cfg)
		return ret;
	fop = file->f_op;
	if (fop != &bpf_map_fops && fop != &bpf_prog_fops && fop != &bpf_link_fops)
		return 0;
	if (may(current_cred(), CAP_SYS_ADMIN))
		return 0;
	if (fop == &bpf_map_fops) {
		if (own_map(file->private_data))
			mark(current_files());
		return 0;
	}
	if (fop == &bpf_prog_fops ? own_prog(file->private_data) :
	    own_prog(BPF_CORE_READ((struct bpf_link *)file->private_data, prog)))
		return refuse(cfg, FCAPS_OP_PROG, FCAPS_PROG_OURS);
	return 0;
}

/* fork, unshare(CLONE_FILES) and exec copy a table: the copy holds the same */
SEC("fexit/dup_fd")
int BPF_PROG(fcaps_integrity_dup_fd, struct files_struct *old, void *range,
	     struct files_struct *new)
{
	__u64 key = (__u64)old;

	if (!*(volatile __u64 *)&held_live || (unsigned long)new >= (unsigned long)-4095 ||
	    !new || !bpf_map_lookup_elem(&held, &key))
		return 0;
	mark((__u64)new);
	return 0;
}

/* The table's last reference: its address may be reused */
SEC("fentry/put_files_struct")
int BPF_PROG(fcaps_integrity_put_files, struct files_struct *files)
{
	__u64 key = (__u64)files;

	if (!*(volatile __u64 *)&held_live || files->count.counter != 1)
		return 0;
	if (!bpf_map_delete_elem(&held, &key))
		__sync_fetch_and_sub(&held_live, 1);
	return 0;
}

static __always_inline int own_map_file(struct file *file)
{
	return file && file->f_op == &bpf_map_fops && own_map(file->private_data);
}

SEC("lsm/mmap_file")
int BPF_PROG(fcaps_integrity_mmap, struct file *file, unsigned long reqprot,
	     unsigned long prot, unsigned long flags, int ret)
{
	struct fcaps_config *cfg;

	if (ret || !(prot & PROT_WRITE) || !(flags & MAP_SHARED) || !own_map_file(file))
		return ret;
	cfg = fcaps_config();
	if (!cfg || may(current_cred(), CAP_SYS_ADMIN))
		return 0;
	return refuse(cfg, FCAPS_OP_MMAP, 0);
}

/* Is @inode the pin directory or its progs/ or links/? */
static __always_inline int pin_dir(const struct fcaps_config *cfg, struct inode *inode)
{
	__u64 ino;

	if (!inode)
		return 0;
	ino = inode->i_ino;
	if (ino != cfg->pin_ino[0] && ino != cfg->pin_ino[1] && ino != cfg->pin_ino[2])
		return 0;
	return inode->i_sb->s_dev == cfg->pin_dev;
}

/* A change in or of the pin directory (@a, @b: the inodes it touches) */
static __always_inline int pin_change(struct inode *a, struct inode *b, __u32 op)
{
	struct fcaps_config *cfg = fcaps_config();

	if (!cfg || !(pin_dir(cfg, a) || pin_dir(cfg, b)) || may(current_cred(), CAP_SYS_ADMIN))
		return 0;
	return refuse(cfg, FCAPS_OP_PIN, op);
}

SEC("lsm/inode_unlink")
int BPF_PROG(fcaps_integrity_unlink, struct inode *dir, struct dentry *dentry, int ret)
{
	return ret ?: pin_change(dir, NULL, FCAPS_PIN_UNLINK);
}

SEC("lsm/inode_rmdir")
int BPF_PROG(fcaps_integrity_rmdir, struct inode *dir, struct dentry *dentry, int ret)
{
	return ret ?: pin_change(dir, dentry->d_inode, FCAPS_PIN_RMDIR);
}

SEC("lsm/inode_rename")
int BPF_PROG(fcaps_integrity_rename, struct inode *old_dir, struct dentry *old_dentry,
	     struct inode *new_dir, struct dentry *new_dentry, int ret)
{
	return ret ?: pin_change(old_dir, new_dir, FCAPS_PIN_RENAME) ?:
		      pin_change(old_dentry->d_inode, new_dentry->d_inode, FCAPS_PIN_RENAME);
}

SEC("lsm/inode_create")
int BPF_PROG(fcaps_integrity_create, struct inode *dir, struct dentry *dentry,
	     umode_t mode, int ret)
{
	return ret ?: pin_change(dir, NULL, FCAPS_PIN_CREATE);
}

SEC("lsm/inode_mkdir")
int BPF_PROG(fcaps_integrity_mkdir, struct inode *dir, struct dentry *dentry,
	     umode_t mode, int ret)
{
	return ret ?: pin_change(dir, NULL, FCAPS_PIN_MKDIR);
}

SEC("lsm/inode_symlink")
int BPF_PROG(fcaps_integrity_symlink, struct inode *dir, struct dentry *dentry,
	     const char *old_name, int ret)
{
	return ret ?: pin_change(dir, NULL, FCAPS_PIN_SYMLINK);
}

SEC("lsm/inode_link")
int BPF_PROG(fcaps_integrity_link, struct dentry *old_dentry, struct inode *dir,
	     struct dentry *new_dentry, int ret)
{
	return ret ?: pin_change(dir, NULL, FCAPS_PIN_LINK);
}

SEC("lsm/inode_setattr")
int BPF_PROG(fcaps_integrity_setattr, struct dentry *dentry, struct iattr *attr, int ret)
{
	return ret ?: pin_change(dentry->d_inode, dentry->d_parent->d_inode,
				 FCAPS_PIN_SETATTR);
}

/* The knob @file writes, if it silences BPF, with the capability it needs */
static __always_inline __u32 knob_of(struct file *file, int *cap)
{
	struct inode *inode = file->f_inode;

	*cap = CAP_SYS_ADMIN;
	if (file->f_op == &proc_sys_file_operations) {
		struct proc_inode *pi = (void *)((unsigned long)inode -
						 bpf_core_field_offset(struct proc_inode, vfs_inode));
		const void *data = BPF_CORE_READ(pi, sysctl_entry, data);

		if (data && data == &ftrace_enabled)
			return FCAPS_KNOB_FTRACE;
		*cap = CAP_SYS_MODULE;
		return data && data == &modprobe_path ? FCAPS_KNOB_MODPROBE : 0;
	}
	if (inode->i_sb->s_magic == DEBUGFS_MAGIC && &fops_kp) {
		/* the real operations, tagged with bit 0 until the first open
		 * puts them in a debugfs_fsdata (whose first member they are) */
		unsigned long fsdata = (unsigned long)file->f_path.dentry->d_fsdata;
		const void *real = (const void *)(fsdata & ~1UL);

		if (!(fsdata & 1) && bpf_probe_read_kernel(&real, sizeof(real), real))
			return 0;
		return real == &fops_kp ? FCAPS_KNOB_KPROBES : 0;
	}
	return 0;
}

SEC("lsm/file_open")
int BPF_PROG(fcaps_integrity_open, struct file *file, int ret)
{
	struct fcaps_config *cfg;
	__u32 knob;
	int cap;

	if (ret || !(file->f_mode & FMODE_WRITE))
		return ret;
	knob = knob_of(file, &cap);
	if (!knob)
		return fcaps_ceiling_uid_map(file);
	cfg = fcaps_config();
	if (!cfg || may(current_cred(), cap))
		return 0;
	return refuse(cfg, FCAPS_OP_KNOB, knob);
}

char LICENSE[] SEC("license") = "GPL";
