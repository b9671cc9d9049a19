// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "ring.h"

int ring_open_fd(int fd, struct ring *r, int writable)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	void *p;

	memset(r, 0, sizeof(*r));
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	/* a map of another shape would be read as garbage */
	if (info.type != BPF_MAP_TYPE_ARRAY || info.value_size != sizeof(struct fcaps_decision) ||
	    info.max_entries != FCAPS_MAX_DECISIONS || !(info.map_flags & BPF_F_MMAPABLE))
		return -EPROTO;
	r->len = (size_t)info.max_entries * info.value_size;
	/* writable for ring_free(), which clears slots through the mapping */
	p = mmap(NULL, r->len, PROT_READ | (writable ? PROT_WRITE : 0), MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	r->slots = p;
	return 0;
}

int ring_open(const char *path, struct ring *r)
{
	int fd = bpf_obj_get(path), err;

	if (fd < 0)
		return -errno;
	err = ring_open_fd(fd, r, 1);
	close(fd);		/* the mapping holds the map */
	return err;
}

void ring_close(struct ring *r)
{
	if (r->slots)
		munmap(r->slots, r->len);
	memset(r, 0, sizeof(*r));
}

int ring_read(const struct ring *r, __u32 i, struct fcaps_decision *out)
{
	const volatile struct fcaps_decision *s = &r->slots[i];
	__u64 seq = s->seq;

	if (!seq)
		return 0;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	memcpy(out, (const void *)s, sizeof(*out));
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	/* a writer only fills a free slot: a changed seq means it was freed */
	return s->seq == seq && out->seq == seq;
}

void ring_free(struct ring *r, __u32 i, __u64 seq)
{
	struct fcaps_decision *s = &r->slots[i];

	if (__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) != seq)
		return;
	/* no writer touches a slot that holds a record: clear, then free */
	memset((char *)s + sizeof(s->seq), 0, sizeof(*s) - sizeof(s->seq));
	__atomic_store_n(&s->seq, 0, __ATOMIC_RELEASE);
}

long ring_count(const struct ring *r)
{
	long n = 0;

	for (__u32 i = 0; i < FCAPS_MAX_DECISIONS; i++)
		n += __atomic_load_n(&r->slots[i].seq, __ATOMIC_RELAXED) != 0;
	return n;
}
