// SPDX-License-Identifier: GPL-2.0
/*
 * mkvalues DIR: the malformed-value sweep's values and their expected
 * outcomes. Writes DIR/values/NAME (the raw security.capability bytes) and
 * DIR/manifest, one line per value:
 *
 *   NAME KIND SIZE HEX K0 K1000 B0 B1000 BRET READBACK
 *
 * K0/K1000: exec as uid 0/1000 with the kernel's rules (kernel.fcaps.exec=1);
 * B0/B1000: the same with the kernel's rules off and BPF enforcing; each
 * -errno, or 0/1 for a successful exec with AT_SECURE 0/1. BRET: the BPF
 * decision record's ret. READBACK: what getxattr returns, "x:HEX" or
 * "e:ERRNO". HEX is "-" for an empty value.
 *
 * The expectations come from the small table below, written from
 * SEMANTICS.md sections 1-2 and 6.1's get_vfs_caps_from_disk(),
 * bprm_caps_from_vfs_caps() and cap_inode_getsecurity(); nothing here uses
 * bpf/fcaps.h.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAXV 64
#define VALID 0x1ffffffffffULL		/* capabilities 0-40 */

/* ---- the values: every size 0-64, per kind, plain/random/one-bit ---- */

struct kind {
	const char *name;
	uint32_t tag;
	int sets;		/* 3: effective, permitted, inheritable; 2: no effective */
	int lo[3], hi[3];	/* word index of each set's low and high word */
	int nomasks;		/* only the plain and random variants */
};

static const struct kind kinds[] = {
	{ "l1", 0x19980330, 3, { 1, 2, 3 }, { 4, 5, 6 } },  /* v1 has no high words: */
	{ "l3", 0x20080522, 3, { 1, 2, 3 }, { 4, 5, 6 } },  /* ... v3's places for both */
	{ "v2", 0x02000000, 2, { 1, 2 }, { 3, 4 } },	     /* 6.1: permitted, inheritable */
	{ "v2e", 0x02000001, 2, { 1, 2 }, { 3, 4 } },	     /* ... with the effective flag */
	{ "v3", 0x03000000, 2, { 1, 2 }, { 3, 4 } },	     /* ... rootid (word 5) 0 */
	{ "unk", 0x42424242, 3, { 1, 2, 3 }, { 4, 5, 6 } },
	{ "rnd", 0, 0, { 0 }, { 0 } },			     /* every byte random */
	/* 6.1 formats its getxattr refuses but its exec honours: revision 1
	 * (12 bytes, effective flag), revision 2 with an undefined flag bit */
	{ "r1", 0x01000001, 2, { 1, 2 }, { 3, 4 }, 1 },
	{ "v2x", 0x02000002, 2, { 1, 2 }, { 3, 4 }, 1 },
};
static const int bits[] = { 31, 32, 39, 40, 41, 63 };
static const char setname[2][3] = { { 'e', 'p', 'i' }, { 'p', 'i' } };

static uint64_t rng = 0x2006112700fcab5ULL;	/* fixed seed */
static uint8_t rnd8(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng >> 24;
}

static uint32_t word(const uint8_t *v, int size, int i)	/* le32; 0 past size */
{
	uint32_t w = 0;

	for (int b = 0; b < 4; b++)
		if (4 * i + b < size)
			w |= (uint32_t)v[4 * i + b] << (8 * b);
	return w;
}

/* ---- the expectations ---- */

enum class {
	LEGACY_OK,	/* SEMANTICS 1: legacy tag, its size, no cap above 40 */
	LEGACY_BAD,	/* legacy tag, anything else */
	V61_OK,		/* 6.1 rev 1/2/3 at 12/20/24 bytes; bits above 40 dropped */
	V61_NOTOURS,	/* rev 3 whose rootid does not own init_user_ns: as if absent */
	V61_EINVAL,	/* not legacy: under 4 bytes, unknown revision, wrong size */
	V61_ERANGE,	/* not legacy, over 24 bytes: 6.1's buffer overflows */
	NCLASS
};

/*
 * Exec errno under each path, the same for uid 0 and 1000 (only AT_SECURE
 * depends on the uid), and the BPF record's ret. With the kernel's rules
 * off, a legacy value is ignored by the kernel and BPF refuses a malformed
 * one (EPERM) and lets a well-formed one run (it cannot grant); 6.1's
 * formats are the kernel's own business on both paths, and the BPF record
 * predicts 6.1's verdict.
 */
static const struct outcome {
	int kernel_err, bpf_err, bpf_ret;
} table[NCLASS] = {
	[LEGACY_OK]   = { 0, 0, 0 },
	[LEGACY_BAD]  = { EPERM, EPERM, -EPERM },
	[V61_OK]      = { 0, 0, 0 },
	[V61_NOTOURS] = { 0, 0, 0 },
	[V61_EINVAL]  = { EINVAL, EINVAL, -EINVAL },
	[V61_ERANGE]  = { ERANGE, ERANGE, -ERANGE },
};

static enum class classify(const uint8_t *v, int size)
{
	uint32_t tag = word(v, size, 0), rev = tag & 0xff000000U;

	if (size >= 4 && (tag == 0x19980330 || tag == 0x20080522)) {
		int want = tag == 0x19980330 ? 16 : 28;

		/* v1 words name 0-31, all valid; v3's high words 32-63 */
		if (size != want || (want == 28 && ((word(v, size, 4) | word(v, size, 5) |
						     word(v, size, 6)) & ~0x1ffU)))
			return LEGACY_BAD;
		return LEGACY_OK;
	}
	if (size < 4)
		return V61_EINVAL;
	if (size > 24)
		return V61_ERANGE;
	if ((rev == 0x01000000 && size == 12) || (rev == 0x02000000 && size == 20))
		return V61_OK;
	if (rev == 0x03000000 && size == 24)
		return word(v, size, 5) == 0 ? V61_OK : V61_NOTOURS;
	return V61_EINVAL;
}

/*
 * AT_SECURE of a successful exec as uid 1000 (never for uid 0, whose exec
 * changes no id): SEMANTICS 2.7 for a legacy value (any set non-empty);
 * 6.1's rule otherwise (the effective flag, or a permitted set that grew:
 * pP' = fP & bset with a full bounding set and pI empty).
 */
static int secure_1000(enum class c, const uint8_t *v, int size)
{
	uint32_t tag = word(v, size, 0);
	uint64_t p;

	switch (c) {
	case LEGACY_OK:
		for (int i = 1; i < size / 4; i++)
			if (word(v, size, i))
				return 1;
		return 0;
	case V61_OK:
		p = word(v, size, 1);
		if ((tag & 0xff000000U) != 0x01000000)
			p |= (uint64_t)word(v, size, 3) << 32;
		return (tag & 1) || (p & VALID);
	default:
		return 0;
	}
}

/* What getxattr gives back: -errno, or the size with the bytes in @out. */
static int readback(enum class c, const uint8_t *v, int size, uint8_t *out)
{
	uint32_t tag = word(v, size, 0);

	if (c == LEGACY_OK || c == LEGACY_BAD) {	/* SEMANTICS 1: unchanged */
		memcpy(out, v, size);
		return size;
	}
	/* cap_inode_getsecurity: exact v2 or v3 magic (flag bit aside) */
	if (c == V61_OK && (tag & ~1U) == 0x02000000) {
		memcpy(out, v, size);
		return size;
	}
	if ((c == V61_OK || c == V61_NOTOURS) && (tag & ~1U) == 0x03000000) {
		uint32_t rootid = word(v, size, 5);

		if (rootid == 0xffffffff)	/* no uid at all */
			return -EOVERFLOW;
		memcpy(out, v, size);
		if (rootid)			/* a uid of ours: v3 as stored */
			return size;
		out[3] = 0x02;			/* rootid 0: returned as v2 */
		return 20;
	}
	return -EINVAL;
}

/* ---- output ---- */

static int nvalues;
static uint8_t seen[20000][MAXV + 1];	/* size, then bytes: duplicates out */

static void emit(FILE *m, const char *dir, const char *kind, const char *var,
		 const uint8_t *v, int size)
{
	enum class c = classify(v, size);
	const struct outcome *o = &table[c];
	int s = secure_1000(c, v, size), n;
	uint8_t key[MAXV + 1] = { size }, rb[MAXV];
	char name[64], path[4096];
	FILE *f;

	memcpy(key + 1, v, size);
	for (int i = 0; i < nvalues; i++)
		if (!memcmp(seen[i], key, sizeof(key)))
			return;
	if (nvalues == (int)(sizeof(seen) / sizeof(seen[0]))) {
		fprintf(stderr, "mkvalues: too many values\n");
		exit(1);
	}
	memcpy(seen[nvalues++], key, sizeof(key));

	snprintf(name, sizeof(name), "%s_%02d_%s", kind, size, var);
	snprintf(path, sizeof(path), "%s/values/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fwrite(v, 1, size, f) != (size_t)size || fclose(f)) {
		perror(path);
		exit(1);
	}
	fprintf(m, "%s %s %d ", name, kind, size);
	for (int i = 0; i < size; i++)
		fprintf(m, "%02x", v[i]);
	n = readback(c, v, size, rb);
	/* a value 6.1's getxattr refuses cannot be scanned: the loader keeps it
	 * as unreadable, which BPF records as 6.1's usual EINVAL whatever 6.1's
	 * exec then does (an approximation docs/bpf.md lists) */
	fprintf(m, "%s %d %d %d %d %d ", size ? "" : "-",
		o->kernel_err ? -o->kernel_err : 0, o->kernel_err ? -o->kernel_err : s,
		o->bpf_err ? -o->bpf_err : 0, o->bpf_err ? -o->bpf_err : s,
		n == -EINVAL ? -EINVAL : o->bpf_ret);
	if (n < 0) {
		fprintf(m, "e:%d\n", -n);
		return;
	}
	fprintf(m, "x:");
	for (int i = 0; i < n; i++)
		fprintf(m, "%02x", rb[i]);
	fprintf(m, "\n");
}

static void put_word(uint8_t *v, int i, uint32_t w)
{
	for (int b = 0; b < 4; b++)
		v[4 * i + b] = w >> (8 * b);
}

int main(int argc, char **argv)
{
	char path[4096];
	FILE *m;

	if (argc != 2) {
		fprintf(stderr, "usage: mkvalues DIR\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/values", argv[1]);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/manifest", argv[1]);
	m = fopen(path, "w");
	if (!m) {
		perror(path);
		return 1;
	}
	fprintf(m, "# NAME KIND SIZE HEX K0 K1000 B0 B1000 BRET READBACK\n");
	for (int size = 0; size <= MAXV; size++) {
		for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
			const struct kind *kd = &kinds[k];
			uint8_t v[MAXV + 4] = {};
			char var[16];

			if (!kd->sets) {	/* all random */
				for (int i = 0; i < size; i++)
					v[i] = rnd8();
				emit(m, argv[1], kd->name, "rand", v, size);
				continue;
			}
			put_word(v, 0, kd->tag);
			emit(m, argv[1], kd->name, "zero", v, size);
			for (int i = 4; i < size; i++)
				v[i] = rnd8();
			emit(m, argv[1], kd->name, "rand", v, size);
			/* one bit in one set, where the size reaches that word */
			for (int s = 0; s < kd->sets && !kd->nomasks; s++) {
				for (size_t b = 0; b < sizeof(bits) / sizeof(bits[0]); b++) {
					int w = bits[b] < 32 ? kd->lo[s] : kd->hi[s];

					if (4 * (w + 1) > size)
						continue;
					memset(v + 4, 0, sizeof(v) - 4);
					put_word(v, w, 1U << (bits[b] % 32));
					snprintf(var, sizeof(var), "%c%d",
						 setname[kd->sets == 2][s], bits[b]);
					emit(m, argv[1], kd->name, var, v, size);
				}
			}
		}
	}
	if (fclose(m)) {
		perror(path);
		return 1;
	}
	fprintf(stderr, "mkvalues: %d values\n", nvalues);
	return 0;
}
