// SPDX-License-Identifier: GPL-2.0
/* Host unit tests for bpf/fcaps.h: every row's expectation is written out
 * from SEMANTICS.md section 1, not derived from the decoder. */
#include <linux/types.h>
#include <stdio.h>
#include <string.h>
#include "fcaps.h"
#include "tap.h"

#define LE(x) (__u8)(x), (__u8)((x) >> 8), (__u8)((x) >> 16), (__u8)((x) >> 24)
#define V1 LE(0x19980330)
#define V3 LE(0x20080522)
#define REV2 LE(0x02000001)

struct row {
	const char *name;
	__u8 buf[40];
	__u32 len;
	enum fcaps_form form;
	__u64 e, p, i;
};

static const struct row rows[] = {
	{ "empty value", {0}, 0, FCAPS_NOT_LEGACY },
	{ "3 bytes, no tag", { V1 }, 3, FCAPS_NOT_LEGACY },
	{ "tag only (4 bytes) v1", { V1 }, 4, FCAPS_MALFORMED },
	{ "tag only (4 bytes) v3", { V3 }, 4, FCAPS_MALFORMED },
	{ "6.1 revision 2 is not legacy", { REV2, LE(1), LE(0) }, 20, FCAPS_NOT_LEGACY },
	{ "v1 cap_net_raw+ep", { V1, LE(1 << 13), LE(1 << 13), LE(0) }, 16,
	  FCAPS_WELL_FORMED, 1 << 13, 1 << 13, 0 },
	{ "v1 all 32 bits valid", { V1, LE(0xffffffff), LE(0xffffffff), LE(0xffffffff) },
	  16, FCAPS_WELL_FORMED, 0xffffffff, 0xffffffff, 0xffffffff },
	{ "v1 size 15", { V1, LE(1), LE(1), LE(1) }, 15, FCAPS_MALFORMED },
	{ "v1 size 17", { V1, LE(1), LE(1), LE(1) }, 17, FCAPS_MALFORMED },
	{ "v1 size 28 (v3's size)", { V1, LE(1), LE(1), LE(1), LE(0), LE(0), LE(0) },
	  28, FCAPS_MALFORMED },
	{ "v3 cap_bpf(39)+p cap_perfmon(38)+e", { V3, LE(0), LE(0), LE(0),
	  LE(1 << 6), LE(1 << 7), LE(0) }, 28, FCAPS_WELL_FORMED,
	  1ULL << 38, 1ULL << 39, 0 },
	{ "v3 low and high words", { V3, LE(0x20), LE(0x21), LE(0x1),
	  LE(0x100), LE(0x100), LE(0x80) }, 28, FCAPS_WELL_FORMED,
	  0x10000000020ULL, 0x10000000021ULL, 0x8000000001ULL },
	{ "v3 cap 40 is the last valid", { V3, LE(0), LE(0), LE(0),
	  LE(0), LE(1 << 8), LE(0) }, 28, FCAPS_WELL_FORMED, 0, 1ULL << 40, 0 },
	{ "v3 cap 41 in permitted", { V3, LE(0), LE(0), LE(0),
	  LE(0), LE(1 << 9), LE(0) }, 28, FCAPS_MALFORMED },
	{ "v3 cap 63 in inheritable", { V3, LE(0), LE(0), LE(0),
	  LE(0), LE(0), LE(0x80000000) }, 28, FCAPS_MALFORMED },
	{ "v3 cap 41 in effective", { V3, LE(0), LE(0), LE(0),
	  LE(1 << 9), LE(0), LE(0) }, 28, FCAPS_MALFORMED },
	{ "v3 size 16 (v1's size)", { V3, LE(1), LE(1), LE(1) }, 16, FCAPS_MALFORMED },
	{ "v3 size 29", { V3 }, 29, FCAPS_MALFORMED },
	{ "v3 size 40 (larger than any legacy value)", { V3 }, 40, FCAPS_MALFORMED },
};

int main(void)
{
	for (size_t n = 0; n < sizeof(rows) / sizeof(rows[0]); n++) {
		const struct row *r = &rows[n];
		struct fcaps_sets s = { ~0ULL, ~0ULL, ~0ULL };
		char name[128];
		enum fcaps_form f;

		if (!tap_selected("decode %s", r->name))
			continue;
		f = fcaps_decode(r->buf, r->len, &s);
		snprintf(name, sizeof(name), "decode %s: form", r->name);
		ASSERT_EQ(f, r->form, name);
		snprintf(name, sizeof(name), "decode %s: effective", r->name);
		/* sets are written only for a well-formed value */
		ASSERT_EQ(s.effective, f == FCAPS_WELL_FORMED ? r->e : ~0ULL, name);
		snprintf(name, sizeof(name), "decode %s: permitted", r->name);
		ASSERT_EQ(s.permitted, f == FCAPS_WELL_FORMED ? r->p : ~0ULL, name);
		snprintf(name, sizeof(name), "decode %s: inheritable", r->name);
		ASSERT_EQ(s.inheritable, f == FCAPS_WELL_FORMED ? r->i : ~0ULL, name);
	}
	return finish();
}
