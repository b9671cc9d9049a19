// SPDX-License-Identifier: GPL-2.0
/* Writing the BPF side's config (bpf/fcaps.h, struct fcaps_config) */
#include <stddef.h>
#include <sys/mman.h>
#include <unistd.h>
#include "config.h"

/*
 * Write @cfg into the config map @fd through its mapping, 32 bits at a
 * time, and never ceilings_live: that is BPF's count, changed by its
 * atomics at any moment, and a whole-value update (bpf_map_update_elem())
 * would write back the count read before it, hiding a ceiling that is
 * live. Mode and armed go last, in one store, so that the programs see a
 * mode only with the switches that go with it (x86 keeps stores in order,
 * and the programs read the config with plain loads). 0 or -1 with errno
 * set.
 */
int fcaps_config_store(int fd, const struct fcaps_config *cfg)
{
	long page = sysconf(_SC_PAGESIZE);
	const __u32 *src = (const __u32 *)cfg;
	__u32 *dst;

	_Static_assert(offsetof(struct fcaps_config, ceilings_live) == 4 &&
		       sizeof(*cfg) % 4 == 0, "fcaps_config_store() skips the second word");
	dst = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (dst == MAP_FAILED)
		return -1;
	for (size_t i = 2; i < sizeof(*cfg) / 4; i++)
		__atomic_store_n(&dst[i], src[i], __ATOMIC_RELAXED);
	__atomic_store_n(&dst[0], src[0], __ATOMIC_RELEASE);
	munmap(dst, page);
	return 0;
}
