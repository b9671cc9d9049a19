/* SPDX-License-Identifier: GPL-2.0 */
/* fcaps_probe's chain steps and its decisions beyond signals (probe_ops.c) */
#ifndef FCAPS_PROBE_OPS_H
#define FCAPS_PROBE_OPS_H

#include <sys/types.h>

/* --setuid UID: setresgid and setresuid to UID: setuid=0|-1 errno=N */
void probe_report(const char *what, int rc);
void probe_setuid(uid_t uid);
/* xattr set HEX|empty|remove|set-other|remove-other FILE: xattr=0|-1 errno=N
 * (security.capability; "other" is security.fcaps_probe); 2 on bad words */
int probe_xattr(const char *op, const char *file, const char *hex);
/* ptrace PID: PTRACE_SEIZE then detach: ptrace=0|-1 errno=N */
void probe_ptrace(pid_t pid);
/* traceme FILE: a child execs FILE traceme-self, which reports traceme= */
int probe_traceme(const char *file);
void probe_traceme_self(void);
/* trace FILE [WORD]...: FILE run by a child we trace: traced=PID, then
 * trace=0|-1 errno=N */
int probe_trace(char **argv);

#endif
