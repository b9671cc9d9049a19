/* SPDX-License-Identifier: GPL-2.0 */
/* The programs of the fcaps object: which a load attaches, and how. */
#ifndef FCAPS_PROGS_H
#define FCAPS_PROGS_H

#include <stddef.h>
#include <bpf/libbpf.h>

struct fcaps_bpf;

enum prog_stage {
	SYNC,	/* keep the policy map true: attached before the scan */
	MAIN,	/* the rest, once the policy is written */
};

#define MAX_LINKS 64	/* more than the programs of one load */

/* Autoload each program as its group says for this load and this kernel
 * (@setattr_idmap: its inode_setattr() takes an idmap first): 0, or -1
 * with the error printed for a program in no group */
int choose_progs(struct fcaps_bpf *skel, int recording, int kernel_records, int setattr_idmap);
/* Attach the programs of @stage and keep their links in @links, their
 * names in @names, counted in @n; 0 or -1 with the error printed */
int attach_progs(struct fcaps_bpf *skel, enum prog_stage stage, struct bpf_link **links,
		 const char **names, size_t *n);
/* Pin every program and link under @root/progs and @root/links */
int pin_all(struct fcaps_bpf *skel, struct bpf_link **links, const char **names, size_t n,
	    const char *root);

#endif
