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
 *   chmod'ed (pins.bpf.c).
 * - knobs that silence the programs: kernel.ftrace_enabled (every
 *   trampoline) and debugfs kprobes/enabled (the policy's sync kprobe);
 *   and kernel.modprobe, which needs CAP_SYS_MODULE on both paths (the
 *   kernel runs it with every capability): knobs.bpf.c.
 * In shadow mode nothing is refused: each would-be refusal is recorded.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "integrity.bpf.h"

#define PROT_WRITE	0x2
#define MAP_SHARED	0x01
#define MAX_USED_MAPS	64

extern const void bpf_map_fops __ksym;
extern const void bpf_prog_fops __ksym;
extern const void bpf_link_fops __ksym;

/* Descriptor tables (struct files_struct *) that hold one of fcaps' maps,
 * of callers that may not change enforcement */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FCAPS_MAX_MARKS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64);
	__type(value, __u8);
} held SEC(".maps") __weak;

/* as ceilings_live; a mark that did not fit marks every table (fail closed) */
__u64 held_live, held_lost;

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

/*
 * fork, unshare(CLONE_FILES) and exec copy a table: the copy holds the same.
 * dup_fd() makes every table but init's, so a mark left at its address
 * (two threads that put a shared table at once both saw a count of 2 in
 * fcaps_integrity_put_files) goes here, before anyone uses the new one.
 */
SEC("fexit/dup_fd")
int BPF_PROG(fcaps_integrity_dup_fd, struct files_struct *old, void *range,
	     struct files_struct *new)
{
	__u64 key = (__u64)old, nkey = (__u64)new;

	if (!*(volatile __u64 *)&held_live || (unsigned long)new >= (unsigned long)-4095 || !new)
		return 0;
	if (bpf_map_lookup_elem(&held, &key))
		mark(nkey);
	else if (!bpf_map_delete_elem(&held, &nkey))
		__sync_fetch_and_sub(&held_live, 1);
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

char LICENSE[] SEC("license") = "GPL";
