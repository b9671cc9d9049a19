/* SPDX-License-Identifier: GPL-2.0 */
/* How a guest test program reports: a PASS or FAIL line per check, and
 * "N passed, N failed" at the end (what tests/run adds up). */
#ifndef FCAPS_REPORT_H
#define FCAPS_REPORT_H

void check(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A check that cannot run here, with the reason; counted apart. */
void skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The closing line; the exit status: 1 if a check failed. */
int finish(void);

#endif
