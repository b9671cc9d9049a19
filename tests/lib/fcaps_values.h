/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Raw security.capability values the tests put on files: written offline
 * into the ext4 test image by the host (mkvalues, mkimage) and expected
 * back, byte for byte, by the guest tests. Each value names its kind; no
 * code infers a kind from a name.
 */
#ifndef FCAPS_TEST_VALUES_H
#define FCAPS_TEST_VALUES_H

#include <linux/types.h>

#define TV_LE(x) (__u8)(x), (__u8)((x) >> 8), (__u8)((x) >> 16), (__u8)((x) >> 24)
#define TV_TAG_V1 TV_LE(0x19980330)
#define TV_TAG_V3 TV_LE(0x20080522)
/* 6.1's own formats: VFS_CAP_REVISION_2/3 | VFS_CAP_FLAGS_EFFECTIVE */
#define TV_TAG_61_V2 TV_LE(0x02000001)
#define TV_TAG_61_V3 TV_LE(0x03000001)
#define TV_NET_RAW TV_LE(1 << 13)
#define TV_BPF_HI TV_LE(1 << (39 - 32))

enum fcaps_test_kind {
	TV_LEGACY,		/* well-formed legacy v1 or v3: the 2006 rules */
	TV_MALFORMED,		/* legacy tag, wrong size or bits above 40: EPERM */
	TV_V2,			/* 6.1's VFS_CAP_REVISION_2, 20 bytes: 6.1's rules */
	TV_V3,			/* 6.1's VFS_CAP_REVISION_3, 24 bytes, rootid 0 */
	TV_UNKNOWN,		/* neither tag: 6.1 refuses the value (EINVAL) */
	TV_SHORT,		/* 1 to 3 bytes, no whole tag: 6.1 refuses (EINVAL) */
};

static inline const char *fcaps_test_kind_name(enum fcaps_test_kind k)
{
	static const char *const names[] = { "legacy", "malformed", "v2", "v3",
					     "unknown", "short" };

	return k <= TV_SHORT ? names[k] : "?";
}

/* Only legacy-tagged values are the fcaps rules' business. */
static inline int fcaps_test_kind_is_legacy(enum fcaps_test_kind k)
{
	return k == TV_LEGACY || k == TV_MALFORMED;
}

struct fcaps_test_value {
	const char *name;
	enum fcaps_test_kind kind;
	__u8 bytes[32];
	__u32 len;
	__u32 mode;		/* the file's mode on the image; 0 is 0755 */
};

static const struct fcaps_test_value fcaps_test_values[] = {
	{ "good_v1", TV_LEGACY, { TV_TAG_V1, TV_NET_RAW, TV_NET_RAW, TV_LE(0) }, 16 },
	{ "good_v3", TV_LEGACY, { TV_TAG_V3, TV_LE(0), TV_LE(0), TV_LE(0),
				  TV_BPF_HI, TV_BPF_HI, TV_LE(0) }, 28 },
	/* setuid-root and capped: on the nosuid bind mount both are ignored */
	{ "suid_good_v1", TV_LEGACY, { TV_TAG_V1, TV_NET_RAW, TV_NET_RAW, TV_LE(0) }, 16, 04755 },
	{ "m_v1_size15", TV_MALFORMED, { TV_TAG_V1, TV_NET_RAW, TV_NET_RAW, TV_LE(0) }, 15 },
	{ "m_v1_size17", TV_MALFORMED, { TV_TAG_V1, TV_NET_RAW, TV_NET_RAW, TV_LE(0) }, 17 },
	{ "m_v1_size28", TV_MALFORMED, { TV_TAG_V1, TV_NET_RAW, TV_NET_RAW, TV_LE(0) }, 28 },
	{ "m_v3_size16", TV_MALFORMED, { TV_TAG_V3, TV_NET_RAW, TV_NET_RAW, TV_LE(0) }, 16 },
	{ "m_v3_size27", TV_MALFORMED, { TV_TAG_V3, TV_NET_RAW, TV_NET_RAW }, 27 },
	{ "m_v3_size29", TV_MALFORMED, { TV_TAG_V3, TV_NET_RAW, TV_NET_RAW }, 29 },
	{ "m_v3_cap41_e", TV_MALFORMED, { TV_TAG_V3, TV_NET_RAW, TV_NET_RAW, TV_LE(0),
					  TV_LE(1 << 9), TV_LE(0), TV_LE(0) }, 28 },
	{ "m_v3_cap41_p", TV_MALFORMED, { TV_TAG_V3, TV_NET_RAW, TV_NET_RAW, TV_LE(0),
					  TV_LE(0), TV_LE(1 << 9), TV_LE(0) }, 28 },
	{ "m_v3_cap63_i", TV_MALFORMED, { TV_TAG_V3, TV_NET_RAW, TV_NET_RAW, TV_LE(0),
					  TV_LE(0), TV_LE(0), TV_LE(0x80000000) }, 28 },
	{ "m_v1_tag_only", TV_MALFORMED, { TV_TAG_V1 }, 4 },
	{ "m_v3_tag_only", TV_MALFORMED, { TV_TAG_V3 }, 4 },
	/* 6.1's v2: permitted cap_net_raw, inheritable none, effective flag */
	{ "v2_raw", TV_V2, { TV_TAG_61_V2, TV_NET_RAW, TV_LE(0), TV_LE(0), TV_LE(0) }, 20 },
	/* 6.1's v3: the same sets, rootid 0 */
	{ "v3ns_raw", TV_V3, { TV_TAG_61_V3, TV_NET_RAW, TV_LE(0), TV_LE(0), TV_LE(0),
			       TV_LE(0) }, 24 },
	/* 6.1's v2 on a setuid-root file: 6.1 gives a non-root caller the
	 * file's sets, not root's */
	{ "suid_v2_raw", TV_V2, { TV_TAG_61_V2, TV_NET_RAW, TV_LE(0), TV_LE(0), TV_LE(0) }, 20,
	  04755 },
	/* 6.1's v3 with rootid 1000: no root of the initial namespace owns it */
	{ "v3ns_rootid", TV_V3, { TV_TAG_61_V3, TV_NET_RAW, TV_LE(0), TV_LE(0), TV_LE(0),
				  TV_LE(1000) }, 24 },
	/* v1's size and layout under a tag that is neither legacy nor 6.1's */
	{ "unknown_tag", TV_UNKNOWN, { TV_LE(0x0deadbee), TV_NET_RAW, TV_NET_RAW, TV_LE(0) }, 16 },
	/* the first 1, 2 and 3 bytes of the v1 tag */
	{ "short_1", TV_SHORT, { TV_TAG_V1 }, 1 },
	{ "short_2", TV_SHORT, { TV_TAG_V1 }, 2 },
	{ "short_3", TV_SHORT, { TV_TAG_V1 }, 3 },
};

#define FCAPS_TEST_NVALUES (sizeof(fcaps_test_values) / sizeof(fcaps_test_values[0]))

/*
 * Values longer than any reader's first buffer (fcapsctl reads 256 bytes,
 * then asks the size): a legacy tag and zeros to @len bytes, malformed.
 * Kept out of the table above, whose values the workload draws from.
 */
struct fcaps_test_long_value {
	const char *name;
	__u32 tag;
	__u32 len;
};

static const struct fcaps_test_long_value fcaps_test_long_values[] = {
	{ "m_v1_size300", 0x19980330, 300 },
};

#define FCAPS_TEST_NLONG (sizeof(fcaps_test_long_values) / sizeof(fcaps_test_long_values[0]))

/*
 * Values on the image that the workload does not draw from (so a seed's
 * events stay what they were): catalogue rows name them.
 */
static const struct fcaps_test_value fcaps_test_odd_values[] = {
	/* 6.1's getxattr refuses to show it (so the loader records it
	 * unreadable and BPF predicts EINVAL) but 6.1's exec accepts it: a
	 * prediction the kernel contradicts (SEMANTICS 7).
	 * VFS_CAP_REVISION_1 | effective: 12 bytes, permitted cap_net_raw */
	{ "rev1_raw", TV_V2, { TV_LE(0x01000001), TV_NET_RAW, TV_LE(0) }, 12 },
	/* 6.1's v2 naming capabilities above 31 only, in its second words:
	 * permitted cap_bpf (39), inheritable cap_checkpoint_restore (40) */
	{ "v2_high", TV_V2, { TV_TAG_61_V2, TV_LE(0), TV_LE(0), TV_LE(1 << 7), TV_LE(1 << 8) },
	  20 },
};

#define FCAPS_TEST_NODD (sizeof(fcaps_test_odd_values) / sizeof(fcaps_test_odd_values[0]))

static inline const struct fcaps_test_value *fcaps_test_value(const char *name)
{
	for (size_t n = 0; n < FCAPS_TEST_NVALUES; n++)
		if (!__builtin_strcmp(fcaps_test_values[n].name, name))
			return &fcaps_test_values[n];
	for (size_t n = 0; n < FCAPS_TEST_NODD; n++)
		if (!__builtin_strcmp(fcaps_test_odd_values[n].name, name))
			return &fcaps_test_odd_values[n];
	return (const struct fcaps_test_value *)0;
}

#endif /* FCAPS_TEST_VALUES_H */
