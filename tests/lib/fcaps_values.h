/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Raw security.capability values the tests put on files: written offline
 * into the ext4 test image by the host (mkvalues) and expected back, byte
 * for byte, by the guest tests. Malformed ones start with "m_".
 */
#ifndef FCAPS_TEST_VALUES_H
#define FCAPS_TEST_VALUES_H

#include <linux/types.h>

#define TV_LE(x) (__u8)(x), (__u8)((x) >> 8), (__u8)((x) >> 16), (__u8)((x) >> 24)
#define TV_V1 TV_LE(0x19980330)
#define TV_V3 TV_LE(0x20080522)
#define TV_NET_RAW TV_LE(1 << 13)
#define TV_BPF_HI TV_LE(1 << (39 - 32))

struct fcaps_test_value {
	const char *name;
	__u8 bytes[32];
	__u32 len;
};

static const struct fcaps_test_value fcaps_test_values[] = {
	{ "good_v1", { TV_V1, TV_NET_RAW, TV_NET_RAW, TV_LE(0) }, 16 },
	{ "good_v3", { TV_V3, TV_LE(0), TV_LE(0), TV_LE(0),
		       TV_BPF_HI, TV_BPF_HI, TV_LE(0) }, 28 },
	{ "m_v1_size15", { TV_V1, TV_NET_RAW, TV_NET_RAW, TV_LE(0) }, 15 },
	{ "m_v1_size17", { TV_V1, TV_NET_RAW, TV_NET_RAW, TV_LE(0) }, 17 },
	{ "m_v1_size28", { TV_V1, TV_NET_RAW, TV_NET_RAW, TV_LE(0) }, 28 },
	{ "m_v3_size16", { TV_V3, TV_NET_RAW, TV_NET_RAW, TV_LE(0) }, 16 },
	{ "m_v3_size27", { TV_V3, TV_NET_RAW, TV_NET_RAW }, 27 },
	{ "m_v3_size29", { TV_V3, TV_NET_RAW, TV_NET_RAW }, 29 },
	{ "m_v3_cap41_e", { TV_V3, TV_NET_RAW, TV_NET_RAW, TV_LE(0),
			    TV_LE(1 << 9), TV_LE(0), TV_LE(0) }, 28 },
	{ "m_v3_cap41_p", { TV_V3, TV_NET_RAW, TV_NET_RAW, TV_LE(0),
			    TV_LE(0), TV_LE(1 << 9), TV_LE(0) }, 28 },
	{ "m_v3_cap63_i", { TV_V3, TV_NET_RAW, TV_NET_RAW, TV_LE(0),
			    TV_LE(0), TV_LE(0), TV_LE(0x80000000) }, 28 },
	{ "m_v1_tag_only", { TV_V1 }, 4 },
	{ "m_v3_tag_only", { TV_V3 }, 4 },
};

#define FCAPS_TEST_NVALUES (sizeof(fcaps_test_values) / sizeof(fcaps_test_values[0]))

#endif /* FCAPS_TEST_VALUES_H */
