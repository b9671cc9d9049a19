/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TAP 13 for the C test programs (tap.c), as tests/lib/tap.sh is for the
 * shell ones: "ok N - name" or "not ok N - name" a check, diagnostics as
 * "# " lines, a skip as "ok N - name # SKIP why", and at the end the plan
 * and "N passed, N failed, N skipped", which tests/run adds up.
 *
 * FCAPS_TEST_FILTER=GLOB (fnmatch) runs only the checks whose name
 * matches; the others are neither run nor counted. FCAPS_TEST_LIST=1
 * prints each name as "check: NAME" and runs none.
 */
#ifndef FCAPS_TAP_H
#define FCAPS_TAP_H

#include <stdio.h>

/* Whether the check named by @fmt is to run (with FCAPS_TEST_LIST, its
 * name is printed and it is not): ask before running one that costs. */
int tap_selected(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* One check's result; a check not selected is not counted */
void check(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A check that cannot run here, with the reason; counted apart */
void skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Diagnostics under the last check */
void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The plan and the closing line; the exit status: 1 if a check failed */
int finish(void);

/* @actual == @expected, both printed when not */
#define ASSERT_EQ(actual, expected, name) ({					\
	long long _a = (long long)(actual), _e = (long long)(expected);	\
	check(_a == _e, "%s", name);						\
	if (_a != _e)								\
		diag("actual %lld (%#llx), expected %lld (%#llx)", _a,		\
		     (unsigned long long)_a, _e, (unsigned long long)_e);	\
	_a == _e;								\
})

#define ASSERT_STREQ(actual, expected, name) ({				\
	const char *_a = (actual), *_e = (expected);				\
	int _ok = _a && _e && !__builtin_strcmp(_a, _e);			\
	check(_ok, "%s", name);							\
	if (!_ok)								\
		diag("actual '%s', expected '%s'", _a ? _a : "(null)",		\
		     _e ? _e : "(null)");					\
	_ok;									\
})

#endif
