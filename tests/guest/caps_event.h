/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the BPF ceiling takes again of 6.1's checks on live sets, as an
 * event: from a chain's state, a capset of pI, an ambient raise,
 * securebits, PTRACE_TRACEME of a child that ran a file, or PTRACE_SEIZE
 * of a process that ran a file (started for the event).
 */
#ifndef FCAPS_CAPS_EVENT_H
#define FCAPS_CAPS_EVENT_H

#include "scenario.h"

struct caps_spec {
	const char *op;			/* inherit|ambient|securebits|traceme|ptrace */
	unsigned long arg;		/* the capability, or the securebits */
	const char *file;		/* traceme, ptrace: what the other process ran */
	uid_t tuid;			/* ptrace: its uid */
	struct creds c;			/* the actor */
	const char *const *chain;	/* its programs, from the first; NULL: PROBE */
};

struct caps_out {
	pid_t actor, target;
	int ret, err;			/* the op: 0, or -1 and errno; -2: not made */
	char out[1024], target_status[512];
};

void run_caps_spec(const struct caps_spec *k, struct caps_out *o);

#endif
