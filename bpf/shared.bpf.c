// SPDX-License-Identifier: GPL-2.0
/*
 * The globals every fcaps program shares, defined once (bpf/fcaps.bpf.h
 * declares them): a weak global would leave one copy per linked object,
 * and the config's map a value five times its size.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "fcaps.bpf.h"

struct fcaps_config fcaps_cfg SEC(".data.config") __attribute__((aligned(8)));
__u64 fcaps_next_seq;
__u32 fcaps_own_btf;
struct fcaps_call fcaps_calls[FCAPS_CALL_SLOTS];
struct fcaps_explicit_call fcaps_explicit_call;
struct fcaps_exec_call fcaps_execs[FCAPS_EXEC_SLOTS];
__u32 fcaps_ceiling_buckets[FCAPS_CEILING_BUCKETS];
struct fcaps_ceiling_front fcaps_ceiling_front[FCAPS_CEILING_BUCKETS];
const volatile __u32 fcaps_ceiling_mask = FCAPS_CEILING_BUCKETS - 1;

char LICENSE[] SEC("license") = "GPL";
