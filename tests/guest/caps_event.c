// SPDX-License-Identifier: GPL-2.0
/* What the ceiling takes again, as an event (caps_event.h) */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "caps_event.h"

/* The probe's key for @op's own report */
static const char *op_key(const char *op)
{
	return !strcmp(op, "securebits") ? "securebits_set=" : !strcmp(op, "inherit") ? "inherit=" :
	       !strcmp(op, "ambient") ? "ambient=" : !strcmp(op, "ptrace") ? "ptrace=" :
	       "traceme=";
}

void run_caps_spec(const struct caps_spec *k, struct caps_out *o)
{
	const char *key = op_key(k->op), *res = NULL;
	char *argv[32], arg[24], tpid[16];
	struct creds tc = { k->tuid };
	int n = 0, tfd = -1;

	memset(o, 0, sizeof(*o));
	o->ret = -2;
	if (!strcmp(k->op, "ptrace")) {
		char *targv[] = { (char *)k->file, "pause", NULL };

		o->target = spawn(&tc, targv, &tfd);
		/* it has exec'd once it reports */
		snprintf(o->target_status, sizeof(o->target_status), "%s", read_output(tfd, 0));
		snprintf(tpid, sizeof(tpid), "%d", o->target);
	}
	while (k->chain && k->chain[n] && n < 24)
		argv[n] = (char *)k->chain[n], n++;
	if (!n)
		argv[n++] = PROBE;
	snprintf(arg, sizeof(arg), !strcmp(k->op, "securebits") ? "%lx" : "%lu", k->arg);
	if (!strcmp(k->op, "inherit")) {
		argv[n++] = "--inherit";
		argv[n++] = arg;
		argv[n++] = "status";
	} else {
		argv[n++] = (char *)k->op;
		argv[n++] = !strcmp(k->op, "ptrace") ? tpid :
			    !strcmp(k->op, "traceme") ? (char *)k->file : arg;
	}
	argv[n] = NULL;
	snprintf(o->out, sizeof(o->out), "%s", run_to_end(&k->c, argv, &o->actor));
	/* the op's own report: the last line of its key (a chain may have
	 * taken the same step before) */
	for (const char *l = o->out; l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, key, strlen(key)))
			res = l;
	if (res) {
		o->ret = atoi(res + strlen(key)) ? -1 : 0;
		o->err = o->ret ? (int)field(res, "errno") : 0;
	}
	if (o->target) {
		kill(o->target, SIGKILL);
		reap(o->target);
		close(tfd);
	}
}
