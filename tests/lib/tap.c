// SPDX-License-Identifier: GPL-2.0
/* TAP 13 for the C test programs: tap.h. */
#include <fnmatch.h>
#include <stdarg.h>
#include <stdlib.h>
#include "tap.h"

static int n, passed, failed, skipped, head;

static void header(void)
{
	if (!head++)
		printf("TAP version 13\n");
}

static int vselected(const char *fmt, va_list ap, int announce)
{
	const char *filter = getenv("FCAPS_TEST_FILTER"), *list = getenv("FCAPS_TEST_LIST");
	char name[1024];

	vsnprintf(name, sizeof(name), fmt, ap);
	if (filter && *filter && fnmatch(filter, name, 0))
		return 0;
	/* set but empty (tests/run passes it always) is not a listing */
	if (list && *list) {
		if (announce)
			printf("check: %s\n", name);
		return 0;
	}
	return 1;
}

int tap_selected(const char *fmt, ...)
{
	va_list ap;
	int on;

	va_start(ap, fmt);
	on = vselected(fmt, ap, 1);
	va_end(ap);
	return on;
}

/* One result line for @fmt, if selected; 1 if it was printed */
static int vresult(const char *status, const char *suffix, const char *fmt, va_list ap)
{
	char name[1024];
	va_list again;

	va_copy(again, ap);
	if (!vselected(fmt, again, 0)) {
		va_end(again);
		return 0;
	}
	va_end(again);
	vsnprintf(name, sizeof(name), fmt, ap);
	header();
	printf("%s %d - %s%s\n", status, ++n, name, suffix);
	fflush(stdout);
	return 1;
}

void check(int ok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (vresult(ok ? "ok" : "not ok", "", fmt, ap))
		ok ? passed++ : failed++;
	va_end(ap);
}

void skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (vresult("ok", " # SKIP", fmt, ap))
		skipped++;
	va_end(ap);
}

void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

int finish(void)
{
	header();
	printf("1..%d\n%d passed, %d failed, %d skipped\n", n, passed, failed, skipped);
	return failed != 0;
}
