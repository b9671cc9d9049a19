// SPDX-License-Identifier: GPL-2.0
/* report.h: the PASS/FAIL lines and the closing count of guest tests. */
#include <stdarg.h>
#include <stdio.h>
#include "report.h"

static int passed, failed, skipped;

void check(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s: ", ok ? "PASS" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	ok ? passed++ : failed++;
}

void skip(const char *fmt, ...)
{
	va_list ap;

	printf("SKIP: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	skipped++;
}

int finish(void)
{
	if (skipped)
		printf("%d skipped\n", skipped);
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
