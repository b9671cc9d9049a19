// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for bpf/fcaps.h: fcaps_decode(), fcaps_decode_61() and
 * fcaps_encode(), compiled for the host. The input is a security.capability
 * value. Besides "no crash", checks:
 *  (a) fcaps_decode() classifies as SEMANTICS section 1 says, by a predicate
 *      written here from that text (not by calling the decoder);
 *  (b) decode(encode(sets)) gives the sets back;
 *  (c) fcaps_decode_61() reads no byte past len, returns -ERANGE (-34) for
 *      len > 24 and -EINVAL (-22) for len < 4.
 * Buffers are heap copies of exactly the bytes the caller may read, so an
 * over-read is an ASan report.
 */
#include <linux/types.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fcaps.h"

#define FAIL(...) do { fprintf(stderr, "fuzz_decode: " __VA_ARGS__); \
		       fprintf(stderr, "\n"); abort(); } while (0)

/* ---- SEMANTICS section 1, independently ---- */

static uint32_t word(const uint8_t *d, size_t n, size_t i)	/* le32, 0 past n */
{
	uint32_t w = 0;

	for (size_t b = 0; b < 4; b++)
		if (4 * i + b < n)
			w |= (uint32_t)d[4 * i + b] << (8 * b);
	return w;
}

/* legacy-tagged: the first le32 word is 0x19980330 or 0x20080522 */
static int spec_legacy(const uint8_t *d, size_t n)
{
	return n >= 4 && (word(d, n, 0) == 0x19980330 || word(d, n, 0) == 0x20080522);
}

/*
 * well-formed: legacy-tagged, exactly 16 (v1) or 28 (v3) bytes, and no set
 * names a capability above 40. v1 names 0-31 only, so every bit is valid;
 * in v3 words 4-6 hold capabilities 32-63, of which 32-40 are bits 0-8.
 */
static int spec_well_formed(const uint8_t *d, size_t n, struct fcaps_sets *s)
{
	uint32_t tag = word(d, n, 0);

	if (!spec_legacy(d, n))
		return 0;
	if (tag == 0x19980330) {
		if (n != 16)
			return 0;
		s->effective = word(d, n, 1);
		s->permitted = word(d, n, 2);
		s->inheritable = word(d, n, 3);
		return 1;
	}
	if (n != 28)
		return 0;
	for (int i = 4; i <= 6; i++)
		if (word(d, n, i) & ~0x1ffU)
			return 0;
	s->effective = word(d, n, 1) | (uint64_t)word(d, n, 4) << 32;
	s->permitted = word(d, n, 2) | (uint64_t)word(d, n, 5) << 32;
	s->inheritable = word(d, n, 3) | (uint64_t)word(d, n, 6) << 32;
	return 1;
}

/* heap copy of the first @n bytes of @d (n may be 0) */
static uint8_t *dup_bytes(const uint8_t *d, size_t n)
{
	uint8_t *p = malloc(n ? n : 1);

	if (!p)
		abort();
	memcpy(p, d, n);
	return p;
}

/* (a) fcaps_decode against the predicate */
static void check_decode(const uint8_t *d, size_t n)
{
	static const struct fcaps_sets poison = { 0x1111, 0x2222, 0x3333 };
	struct fcaps_sets want = {}, got = poison;
	size_t have = n < FCAPS_MAX_SIZE ? n : FCAPS_MAX_SIZE;
	uint8_t *buf = dup_bytes(d, have);	/* what a caller buffers */
	enum fcaps_form form = fcaps_decode(buf, n, &got);
	int wf = spec_well_formed(d, n, &want);

	free(buf);
	if (wf) {
		if (form != FCAPS_WELL_FORMED)
			FAIL("well-formed value (len %zu) decoded as %d", n, form);
		if (memcmp(&got, &want, sizeof(got)))
			FAIL("well-formed value (len %zu) decoded to the wrong sets", n);
	} else {
		enum fcaps_form expect = spec_legacy(d, n) ? FCAPS_MALFORMED : FCAPS_NOT_LEGACY;

		if (form != expect)
			FAIL("value (len %zu, tag %#x) decoded as %d, want %d", n,
			     word(d, n, 0), form, expect);
		if (memcmp(&got, &poison, sizeof(got)))
			FAIL("sets written for a form other than WELL_FORMED (len %zu)", n);
	}
}

/* (b) decode(encode(sets)) == sets, for sets and a tag taken from the input */
static void check_roundtrip(const uint8_t *d, size_t n)
{
	uint32_t tag = n && (d[0] & 1) ? FCAPS_V3_TAG : FCAPS_V1_TAG;
	uint64_t mask = tag == FCAPS_V1_TAG ? 0xffffffffULL : FCAPS_VALID_MASK;
	struct fcaps_sets in, out = {};
	uint8_t enc[FCAPS_MAX_SIZE], *buf;
	__u32 len;

	in.effective = (word(d, n, 1) | (uint64_t)word(d, n, 2) << 32) & mask;
	in.permitted = (word(d, n, 3) | (uint64_t)word(d, n, 4) << 32) & mask;
	in.inheritable = (word(d, n, 5) | (uint64_t)word(d, n, 6) << 32) & mask;
	len = fcaps_encode(&in, tag, enc);
	if (len != (tag == FCAPS_V1_TAG ? 16 : 28))
		FAIL("encode with tag %#x gave %u bytes", tag, len);
	buf = dup_bytes(enc, len);
	if (fcaps_decode(buf, len, &out) != FCAPS_WELL_FORMED ||
	    memcmp(&in, &out, sizeof(in)))
		FAIL("decode(encode(sets)) differs, tag %#x", tag);
	free(buf);
}

/* (c) fcaps_decode_61 on a buffer of exactly len bytes */
static void check_decode_61(const uint8_t *d, size_t n)
{
	struct fcaps_sets s = {};
	__u32 eff = 0, rootid = 0, rev = word(d, n, 0) & 0xff000000U;
	uint8_t *buf = dup_bytes(d, n);
	int rc = fcaps_decode_61(buf, n, &s, &eff, &rootid);
	int ok;

	free(buf);
	if (n > 24) {
		if (rc != -34)
			FAIL("decode_61 len %zu returned %d, want -34", n, rc);
		return;
	}
	if (n < 4) {
		if (rc != -22)
			FAIL("decode_61 len %zu returned %d, want -22", n, rc);
		return;
	}
	/* 6.1's get_vfs_caps_from_disk: revision 1/2/3 at exactly 12/20/24 */
	ok = (rev == 0x01000000 && n == 12) || (rev == 0x02000000 && n == 20) ||
	     (rev == 0x03000000 && n == 24);
	if (rc != (ok ? 0 : -22))
		FAIL("decode_61 len %zu rev %#x returned %d", n, rev, rc);
	if (!rc && ((s.permitted | s.inheritable | s.effective) & ~FCAPS_VALID_MASK))
		FAIL("decode_61 len %zu kept bits above CAP_LAST_CAP", n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_decode(data, size);
	check_roundtrip(data, size);
	check_decode_61(data, size);
	return 0;
}
