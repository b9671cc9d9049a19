// SPDX-License-Identifier: GPL-2.0
/*
 * mkvalues DIR: write each test value of fcaps_values.h, the long and odd
 * ones included, to DIR/NAME and print "NAME MODE" (octal, the file's mode on
 * the image) per value.
 */
#include <stdio.h>
#include "fcaps_values.h"

int main(int argc, char **argv)
{
	char path[4096];

	if (argc != 2) {
		fprintf(stderr, "usage: mkvalues DIR\n");
		return 2;
	}
	for (size_t i = 0; i < FCAPS_TEST_NVALUES + FCAPS_TEST_NODD; i++) {
		const struct fcaps_test_value *v = i < FCAPS_TEST_NVALUES ? &fcaps_test_values[i] :
						   &fcaps_test_odd_values[i - FCAPS_TEST_NVALUES];
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", argv[1], v->name);
		f = fopen(path, "wb");
		if (!f || fwrite(v->bytes, 1, v->len, f) != v->len || fclose(f)) {
			perror(path);
			return 1;
		}
		printf("%s %04o\n", v->name, v->mode ? v->mode : 0755);
	}
	for (size_t i = 0; i < FCAPS_TEST_NLONG; i++) {
		const struct fcaps_test_long_value *v = &fcaps_test_long_values[i];
		__u8 tag[4] = { TV_LE(v->tag) };
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", argv[1], v->name);
		f = fopen(path, "wb");
		if (!f || fwrite(tag, 1, 4, f) != 4) {
			perror(path);
			return 1;
		}
		for (__u32 n = 4; n < v->len; n++)
			fputc(0, f);
		if (fclose(f)) {
			perror(path);
			return 1;
		}
		printf("%s 0755\n", v->name);
	}
	return 0;
}
