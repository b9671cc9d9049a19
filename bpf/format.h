/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DOC: the on-disk formats
 *
 * The legacy security.capability formats (SEMANTICS.md section 1) and
 * 6.1's own, as values: layouts, decoding and encoding. Shared by the BPF
 * programs, the loader and the tests, as the one definition. Include after
 * vmlinux.h (BPF) or <linux/types.h> (userspace), or through fcaps.h.
 */
#ifndef FCAPS_FORMAT_H
#define FCAPS_FORMAT_H

#include "plants.h"

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

#define FCAPS_XATTR_NAME	"security.capability"

#define FCAPS_V1_TAG		0x19980330U	/* the seed's vfs_cap_data_disk */
#define FCAPS_V3_TAG		0x20080522U	/* 64-bit: low words, high words */
#define FCAPS_V1_SIZE		16
#define FCAPS_V3_SIZE		28
#define FCAPS_MAX_SIZE		FCAPS_V3_SIZE
#define FCAPS_LAST_CAP		40		/* CAP_LAST_CAP on 6.1 */
#define FCAPS_VALID_MASK	((2ULL << FCAPS_LAST_CAP) - 1)

/* On-disk layouts, all fields little-endian. */
struct fcaps_v1 {
	__u32 tag;
	__u32 effective;
	__u32 permitted;
	__u32 inheritable;
};

struct fcaps_v3 {
	__u32 tag;
	struct {
		__u32 effective;
		__u32 permitted;
		__u32 inheritable;
	} data[2];			/* [0]: caps 0-31, [1]: caps 32-63 */
};

/* A legacy value decoded into 64-bit masks (bit n = capability n). */
struct fcaps_sets {
	__u64 effective;
	__u64 permitted;
	__u64 inheritable;
};

/* 6.1's own formats (include/uapi/linux/capability.h) */
#define FCAPS_61_REVISION_MASK	0xFF000000U
#define FCAPS_61_EFFECTIVE	0x000001U
#define FCAPS_61_REVISION_1	0x01000000U	/* 12 bytes, caps 0-31 */
#define FCAPS_61_REVISION_2	0x02000000U	/* 20 bytes */
#define FCAPS_61_REVISION_3	0x03000000U	/* 24 bytes, with a rootid */
#define FCAPS_61_MAX_SIZE	24		/* 6.1's read buffer */
/*
 * A policy entry's len for a value that 6.1's getxattr refuses (EINVAL: too
 * short for a tag, a revision word it cannot show), so that the loader
 * cannot read it. 6.1's exec refuses most of them with EINVAL, which is
 * what BPF records; but not all (ERANGE past 24 bytes; a 12-byte revision
 * 1 or a v2 with unknown flag bits runs), so BPF never enforces a 6.1
 * value's error: the kernel does that itself (docs/bpf.md, Approximations).
 */
#define FCAPS_LEN_UNREADABLE	0xFFFFFFFFU

enum fcaps_form {
	FCAPS_NOT_LEGACY = 0,	/* absent, too short for a tag, or 6.1's own */
	FCAPS_WELL_FORMED = 1,
	FCAPS_MALFORMED = 2,	/* legacy tag, wrong size or bits > LAST_CAP */
};

static __always_inline __u32 fcaps_le32(const __u8 *p)
{
	return (__u32)p[0] | (__u32)p[1] << 8 | (__u32)p[2] << 16 |
	       (__u32)p[3] << 24;
}

/*
 * Classify and decode a security.capability value. @len is the attribute's
 * full size; @buf holds its first min(len, FCAPS_MAX_SIZE) bytes. @sets is
 * written only for FCAPS_WELL_FORMED.
 */
static __always_inline enum fcaps_form
fcaps_decode(const __u8 *buf, __u32 len, struct fcaps_sets *sets)
{
	__u64 e, p, i;
	__u32 tag;

	if (len < 4)
		return FCAPS_NOT_LEGACY;
	tag = fcaps_le32(buf);
	if (tag == FCAPS_V1_TAG) {
		if (fcaps_plant(WRONG_SIZE) ? len < FCAPS_V1_SIZE : len != FCAPS_V1_SIZE)
			return FCAPS_MALFORMED;
		e = fcaps_le32(buf + 4);
		p = fcaps_le32(buf + 8);
		i = fcaps_le32(buf + 12);
	} else if (tag == FCAPS_V3_TAG) {
		if (len != FCAPS_V3_SIZE)
			return FCAPS_MALFORMED;
		e = fcaps_le32(buf + 4) | (__u64)fcaps_le32(buf + 16) << 32;
		p = fcaps_le32(buf + 8) | (__u64)fcaps_le32(buf + 20) << 32;
		i = fcaps_le32(buf + 12) | (__u64)fcaps_le32(buf + 24) << 32;
		if (fcaps_plant(V3_HIGH)) {
			e = (__u32)e;
			p = (__u32)p;
			i = (__u32)i;
		}
	} else {
		return FCAPS_NOT_LEGACY;
	}
	if ((e | p | i) & ~FCAPS_VALID_MASK)
		return FCAPS_MALFORMED;
	sets->effective = e;
	sets->permitted = p;
	sets->inheritable = i;
	return FCAPS_WELL_FORMED;
}

/*
 * 6.1's reading of a value that is not legacy-tagged (get_vfs_caps_from_disk
 * and bprm_caps_from_vfs_caps): 0 with the sets, the effective flag and the
 * rootid, or the error the exec then fails with (-ERANGE: longer than 6.1's
 * buffer; -EINVAL: shorter than a tag, unknown revision, wrong size).
 */
static __always_inline int fcaps_decode_61(const __u8 *buf, __u32 len,
					   struct fcaps_sets *sets,
					   __u32 *effective, __u32 *rootid)
{
	__u32 magic, rev;

	if (len == FCAPS_LEN_UNREADABLE)
		return -22;			/* EINVAL */
	if (len > FCAPS_61_MAX_SIZE)
		return -34;			/* ERANGE */
	if (len < 4)
		return -22;			/* EINVAL */
	magic = fcaps_le32(buf);
	rev = magic & FCAPS_61_REVISION_MASK;
	*rootid = 0;
	if (rev == FCAPS_61_REVISION_1 && len == 12) {
		sets->permitted = fcaps_le32(buf + 4);
		sets->inheritable = fcaps_le32(buf + 8);
	} else if ((rev == FCAPS_61_REVISION_2 && len == 20) ||
		   (rev == FCAPS_61_REVISION_3 && len == 24)) {
		sets->permitted = fcaps_le32(buf + 4) |
				  (__u64)fcaps_le32(buf + 12) << 32;
		sets->inheritable = fcaps_le32(buf + 8) |
				    (__u64)fcaps_le32(buf + 16) << 32;
		if (rev == FCAPS_61_REVISION_3)
			*rootid = fcaps_le32(buf + 20);
	} else {
		return -22;
	}
	/* 6.1 drops bits above CAP_LAST_CAP rather than refusing them */
	sets->permitted &= FCAPS_VALID_MASK;
	sets->inheritable &= FCAPS_VALID_MASK;
	sets->effective = magic & FCAPS_61_EFFECTIVE ? sets->permitted : 0;
	*effective = !!(magic & FCAPS_61_EFFECTIVE);
	return 0;
}

static __always_inline void fcaps_put_le32(__u8 *p, __u32 v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

/*
 * Encode @sets as a legacy value with @tag into @buf (FCAPS_MAX_SIZE bytes).
 * Returns the value's size; v1 keeps only the low 32 bits of each set.
 */
static __always_inline __u32 fcaps_encode(const struct fcaps_sets *sets,
					  __u32 tag, __u8 *buf)
{
	fcaps_put_le32(buf, tag);
	fcaps_put_le32(buf + 4, (__u32)sets->effective);
	fcaps_put_le32(buf + 8, (__u32)sets->permitted);
	fcaps_put_le32(buf + 12, (__u32)sets->inheritable);
	if (tag == FCAPS_V1_TAG)
		return FCAPS_V1_SIZE;
	fcaps_put_le32(buf + 16, (__u32)(sets->effective >> 32));
	fcaps_put_le32(buf + 20, (__u32)(sets->permitted >> 32));
	fcaps_put_le32(buf + 24, (__u32)(sets->inheritable >> 32));
	return FCAPS_V3_SIZE;
}

#endif /* FCAPS_FORMAT_H */
