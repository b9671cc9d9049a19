/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every fcaps BPF program includes: the kernel's constants it needs,
 * the capability-set loads, and a header per concern: the maps and
 * globals (maps.bpf.h), the seq join (seqjoin.bpf.h), files as the policy
 * keys them (inode.bpf.h), user namespaces (userns.bpf.h) and the record
 * rings (records.bpf.h).
 */
#ifndef FCAPS_BPF_H
#define FCAPS_BPF_H

#include <bpf/bpf_core_read.h>
#include "fcaps.h"

#define EPERM		1
#define MAX_ERRNO 4095	/* include/linux/err.h */
#define EINVAL		22
#define ERANGE		34
#define MNT_NOSUID	0x01
#define S_ISUID		04000
#define S_ISGID		02000
#define S_IXGRP		00010
#define LSM_UNSAFE_PTRACE	FCAPS_UNSAFE_PTRACE
#define LSM_UNSAFE_NO_NEW_PRIVS	FCAPS_UNSAFE_NO_NEW_PRIVS
#define SECURE_NOROOT	FCAPS_SECURE_NOROOT
#define SECURE_KEEP_CAPS	4
#define CAP_KILL	5
#define CAP_SETUID	7
#define CAP_SETPCAP	8
#define CAP_SYS_PTRACE	19
#define CAP_SYS_ADMIN	21
#define CAP_SYS_NICE	23
#define CAP_SETFCAP	31
#define CAP_FULL	((2ULL << FCAPS_LAST_CAP) - 1)

/*
 * A kernel_cap_t as one mask, in one 64-bit load: the verifier lets a load
 * span an array of integers, x86 and BPF are little-endian (cap[0] is the
 * low word), and x86 loads unaligned words (cred's sets sit at 4 modulo 8,
 * which is why clang, left to itself, splits the load in two). Every load
 * through a BTF pointer is a probing load, seven x86 instructions where a
 * plain one is one, so the hot paths count them (docs/benchmark.md).
 */
static __always_inline __u64 fcaps_cap64p(const kernel_cap_t *c)
{
	/* not true of the address, but what makes clang emit the one load
	 * (with its CO-RE offset in the instruction) that x86 can do */
	return *(const __u64 *)__builtin_assume_aligned(c, 8);
}

#define fcaps_cap64(c)		fcaps_cap64p(&(c))
#define fcaps_has_cap(c, cap)	((fcaps_cap64(c) >> (cap)) & 1)

#include "maps.bpf.h"
#include "seqjoin.bpf.h"
#include "inode.bpf.h"
#include "userns.bpf.h"
#include "records.bpf.h"

#endif /* FCAPS_BPF_H */
