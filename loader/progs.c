// SPDX-License-Identifier: GPL-2.0
/*
 * The programs of the fcaps object, in groups: which loads attach each,
 * and at which stage (progs.h). Every program is in the table, so that a
 * new one cannot be loaded, or left out, without a decision here.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "main.h"
#include "pins.h"
#include "progs.h"
#include "fcaps.skel.h"

/* Which loads attach a program, and when; the last two: which prototype
 * of inode_setattr() the kernel has */
enum prog_when { ALWAYS, RECORDING, NOT_RECORDING, KERNEL_RECORDS, SETATTR, SETATTR_IDMAP };

/* Every program of the object, by exact name or (prefix) name prefix */
static const struct prog_group {
	const char *name;
	int prefix;
	enum prog_when when;
	enum prog_stage stage;
} prog_groups[] = {
	{ "fcaps_exec_enforce_norec", 0, NOT_RECORDING, MAIN },
	{ "fcaps_exec_", 1, RECORDING, MAIN },
	{ "fcaps_kill_norec", 0, NOT_RECORDING, MAIN },
	{ "fcaps_setscheduler_norec", 0, NOT_RECORDING, MAIN },
	{ "fcaps_setnice_norec", 0, NOT_RECORDING, MAIN },
	{ "fcaps_setioprio_norec", 0, NOT_RECORDING, MAIN },
	{ "fcaps_kill", 0, RECORDING, MAIN },
	{ "fcaps_setscheduler", 0, RECORDING, MAIN },
	{ "fcaps_setnice", 0, RECORDING, MAIN },
	{ "fcaps_setioprio", 0, RECORDING, MAIN },
	{ "fcaps_prlimit", 0, ALWAYS, MAIN },
	{ "fcaps_sigio", 1, ALWAYS, MAIN },
	{ "fcaps_kernel_", 1, KERNEL_RECORDS, MAIN },
	{ "fcaps_policy_", 1, ALWAYS, SYNC },
	{ "fcaps_guard_", 1, ALWAYS, MAIN },
	{ "fcaps_ceiling_", 1, ALWAYS, MAIN },
	{ "fcaps_integrity_setattr", 0, SETATTR, MAIN },
	{ "fcaps_integrity_setattr_idmap", 0, SETATTR_IDMAP, MAIN },
	{ "fcaps_integrity_", 1, ALWAYS, MAIN },
};

static const struct prog_group *group_of(const char *name)
{
	for (size_t i = 0; i < sizeof(prog_groups) / sizeof(prog_groups[0]); i++) {
		const struct prog_group *g = &prog_groups[i];

		if (g->prefix ? !strncmp(name, g->name, strlen(g->name)) : !strcmp(name, g->name))
			return g;
	}
	return NULL;
}

int choose_progs(struct fcaps_bpf *skel, int recording, int kernel_records, int setattr_idmap)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, skel->obj) {
		const struct prog_group *g = group_of(bpf_program__name(prog));
		int on;

		if (!g) {
			p_err("load", "program %s is in no group of %s's prog_groups",
			      bpf_program__name(prog), __FILE__);
			return -1;
		}
		on = g->when == ALWAYS || (g->when == RECORDING && recording) ||
		     (g->when == NOT_RECORDING && !recording) ||
		     (g->when == KERNEL_RECORDS && kernel_records) ||
		     (g->when == SETATTR && !setattr_idmap) ||
		     (g->when == SETATTR_IDMAP && setattr_idmap);
		bpf_program__set_autoload(prog, on);
	}
	return 0;
}

int attach_progs(struct fcaps_bpf *skel, enum prog_stage stage, struct bpf_link **links,
			const char **names, size_t *n)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, skel->obj) {
		if (!bpf_program__autoload(prog) || group_of(bpf_program__name(prog))->stage != stage)
			continue;
		if (*n >= MAX_LINKS) {
			p_err("load", "more than %d programs to attach (MAX_LINKS in %s)",
			      MAX_LINKS, __FILE__);
			return -1;
		}
		links[*n] = bpf_program__attach(prog);
		if (!links[*n]) {
			p_err("load", "attaching %s: %s", bpf_program__name(prog),
			      strerror(errno));
			return -1;
		}
		names[(*n)++] = bpf_program__name(prog);
	}
	return 0;
}

int pin_all(struct fcaps_bpf *skel, struct bpf_link **links,
		   const char **names, size_t n, const char *root)
{
	struct bpf_program *prog;
	char path[256];

	bpf_object__for_each_program(prog, skel->obj) {
		if (!bpf_program__autoload(prog))
			continue;
		snprintf(path, sizeof(path), "%s/progs/%s", root, bpf_program__name(prog));
		if (bpf_program__pin(prog, path)) {
			p_err("load", "pinning %s: %s", path, strerror(errno));
			return -1;
		}
	}
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/links/%s", root, names[i]);
		if (bpf_link__pin(links[i], path)) {
			p_err("load", "pinning %s: %s", path, strerror(errno));
			return -1;
		}
		fault_point("pin-link");
	}
	return 0;
}
