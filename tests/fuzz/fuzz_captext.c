// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for loader/capfile.c: fcaps_sets_from_text() (libcap's
 * cap_from_text underneath) on the input as a string. Besides "no crash",
 * checks that an accepted text names no capability above 40, and that
 * fcaps_sets_to_text() of the result parses back to the same sets.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capfile.h"

#define FAIL(...) do { fprintf(stderr, "fuzz_captext: " __VA_ARGS__); \
		       fprintf(stderr, "\n"); abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fcaps_sets sets, back;
	char err[512], *text = malloc(size + 1), *out;

	if (!text)
		abort();
	memcpy(text, data, size);
	text[size] = 0;
	if (fcaps_sets_from_text(text, &sets, err, sizeof(err))) {
		free(text);
		return 0;
	}
	if ((sets.effective | sets.permitted | sets.inheritable) & ~FCAPS_VALID_MASK)
		FAIL("'%s' accepted with a capability above %d", text, FCAPS_LAST_CAP);
	out = fcaps_sets_to_text(&sets);
	if (!out)
		FAIL("fcaps_sets_to_text failed for '%s'", text);
	if (fcaps_sets_from_text(out, &back, err, sizeof(err)))
		FAIL("'%s' (from '%s') does not parse back: %s", out, text, err);
	if (memcmp(&sets, &back, sizeof(sets)))
		FAIL("'%s' (from '%s') parses back to other sets", out, text);
	free(out);
	free(text);
	return 0;
}
