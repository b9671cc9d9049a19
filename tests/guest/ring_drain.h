/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Drains of the decision rings in the middle of a long workload run, so
 * that a run can leave more records than a ring holds (FCAPS_MAX_DECISIONS).
 */
#ifndef FCAPS_RING_DRAIN_H
#define FCAPS_RING_DRAIN_H

/* --drain MAP:DUMP:PIDS, up to two: 0, or -1 with the error said */
int drain_add(const char *spec);
/* Whether any --drain was given */
int drain_wanted(void);
/*
 * After the event whose name begins with @after: each map's records
 * appended to its DUMP by `CTL decisions --json --clear --map MAP` (which
 * frees their slots), and "PID AFTER COUNT" to its PIDS, the drainer's pid
 * (its own records are the harness's) and how many records it wrote. A
 * drain that fails ends the workload: records would be lost.
 */
void drain_rings(const char *ctl, const char *after);

#endif
