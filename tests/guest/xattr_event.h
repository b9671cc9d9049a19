/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A security.* write or removal as an event (SEMANTICS 1 and 6): an actor
 * runs "fcaps_probe xattr OP FILE [HEX]" on a fresh copy of the probe,
 * then root runs that file, which shows what its value now decides (and,
 * under BPF, that the policy followed the change).
 */
#ifndef FCAPS_XATTR_EVENT_H
#define FCAPS_XATTR_EVENT_H

#include "scenario.h"

#define XATTR_FILE "/tmp/xt"

struct xattr_spec {
	const char *op;			/* set|empty|remove|set-other|remove-other */
	const char *value;		/* set: a test value's name (fcaps_values.h) */
	const char *before;		/* the file's value first: a test value's name */
	uid_t owner;			/* the file's owner and group */
	struct creds c;			/* the actor */
	/* the actor's programs before the op, from the first ({ FILE,
	 * options..., "exec", FILE2, ... }); NULL: PROBE */
	const char *const *chain;
};

struct xattr_out {
	pid_t actor, then;
	int ret, err;			/* the op: 0, or -1 and errno; -2: not made */
	char actor_out[512], then_out[512];
};

/* Set up the file, run the op and then the file; 0, or -1 if the file
 * could not be set up (a harness error, said on stderr) */
int run_xattr_spec(const struct xattr_spec *x, struct xattr_out *o);

#endif
