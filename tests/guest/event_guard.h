/* SPDX-License-Identifier: GPL-2.0 */
/* Each workload event in a process of its own, within a time limit. */
#ifndef FCAPS_EVENT_GUARD_H
#define FCAPS_EVENT_GUARD_H

#include <sys/types.h>

/* Once, first: the limit (FCAPS_EVENT_SECONDS, default 10), subreaping */
void guard_init(void);
/* A long-lived process of ours that a hung event's cleanup must spare */
void guard_spare(pid_t pid);
/*
 * Fork for the event @name of @kind: 1 in the event's process, which runs
 * it and ends with guard_end(); 0 in the workload once it has ended or,
 * past the limit, after printing its line with "hang": SECONDS and killing
 * what it left.
 */
int guard_begin(const char *name, const char *kind);
/* In the event's process: flush its line and exit; elsewhere nothing */
void guard_end(void);

#endif
