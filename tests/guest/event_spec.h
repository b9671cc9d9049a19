/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A random event's text form: the words after "random#N: " in its name,
 * written from the choices fcaps_workload made, and read back into the
 * same choices. A reduced (or hand-written) event is this text under the
 * label "reduced" ("reduced#K: TEXT"), which the workload runs as written.
 */
#ifndef FCAPS_EVENT_SPEC_H
#define FCAPS_EVENT_SPEC_H

#include "catalogue.h"

enum event_kind { EV_EXEC, EV_PAIR, EV_XATTR, EV_CAPS };

struct rand_event {
	char name[400];
	const char *focus;
	enum event_kind kind;
	const char *file;		/* exec */
	struct creds c;
	struct switches sw;
	struct pair_row r;		/* pair: signal, scheduling, channel, thread */
	const char *chain[24];		/* exec: fcaps_probe words before file */
	char chain_args[8][16];
	struct xattr_spec x;
	const char *actor;		/* xattr: who, in words (xattr_actors) */
	struct caps_spec k;
	char words[400];		/* a parsed event's words */
};

/* who writes security.* in xattr events: the actors SEMANTICS 1 and 6
 * tell apart */
struct xattr_actor {
	const char *who;
	uid_t uid;
	__u64 pa;
	const char *const *chain;
};
extern const struct xattr_actor xattr_actors[];
extern const size_t n_xattr_actors;

/* @e's name: "@label: TEXT" */
void event_spec_name(struct rand_event *e, const char *label);
/*
 * Read "reduced...: TEXT" into @e, named as given: 0, or -1 with @why
 * (a buffer of @len) saying which word is wrong. Only the canonical form
 * (what event_spec_name writes back) is accepted.
 */
int event_spec_parse(const char *name, struct rand_event *e, char *why, size_t len);

#endif
