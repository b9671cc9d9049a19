// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for loader/policy.c: policy_parse_file() on the input,
 * written to /tmp/fuzz_policy.PID. Besides "no crash", checks that it
 * returns 0 or -1; that on -1 the policy it was given is untouched; that on
 * 0 no entry's value is longer than 64 bytes and no more entries were added
 * than the file has lines.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "policyfile.h"

#define FAIL(...) do { fprintf(saved_stderr, "fuzz_policy: " __VA_ARGS__); \
		       fprintf(saved_stderr, "\n"); abort(); } while (0)

static char file[64];
static FILE *saved_stderr, *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(file, sizeof(file), "/tmp/fuzz_policy.%d", (int)getpid());
	saved_stderr = stderr;
	devnull = fopen("/dev/null", "w");
	return devnull ? 0 : -1;
}

static size_t count_lines(const uint8_t *d, size_t n)
{
	size_t lines = 0;

	for (size_t i = 0; i < n; i++)
		lines += d[i] == '\n';
	return lines + (n && d[n - 1] != '\n');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct policy p = {}, before;
	struct policy_entry *snapshot;
	char err[256];
	FILE *f = fopen(file, "w");
	int rc;

	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		FAIL("cannot write %s", file);
	/* a policy that already holds one entry, as after an earlier file */
	if (policy_add_text(&p, "/", "cap_chown+p", err, sizeof(err)))
		FAIL("seeding the policy: %s", err);
	before = p;
	snapshot = malloc(p.n * sizeof(*snapshot));
	if (!snapshot)
		abort();
	memcpy(snapshot, p.v, p.n * sizeof(*snapshot));

	stderr = devnull;	/* the parser's per-line complaints */
	rc = policy_parse_file(file, &p);
	stderr = saved_stderr;
	unlink(file);

	if (rc != 0 && rc != -1)
		FAIL("policy_parse_file returned %d", rc);
	if (rc == -1 && (p.n != before.n || p.cap != before.cap || p.v != before.v ||
			 memcmp(p.v, snapshot, p.n * sizeof(*snapshot))))
		FAIL("policy changed by a failed parse (n %zu -> %zu)", before.n, p.n);
	if (rc == 0) {
		if (p.n - before.n > count_lines(data, size))
			FAIL("%zu entries from %zu lines", p.n - before.n,
			     count_lines(data, size));
		for (size_t i = 0; i < p.n; i++)
			if (p.v[i].value.len > 64)
				FAIL("entry %zu has a %u-byte value", i, p.v[i].value.len);
	}
	free(snapshot);
	policy_free(&p);
	return 0;
}
