/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The decision rings (decisions, kdecisions; bpf/fcaps.bpf.h) read through
 * a shared mapping: a record is read only when its seq is the same before
 * and after the copy, and a slot is freed only by the reader that saw it.
 */
#ifndef FCAPS_RING_H
#define FCAPS_RING_H

#include <stddef.h>
#include "fcaps.h"

struct ring {
	struct fcaps_decision *slots;
	size_t len;			/* of the mapping */
};

/* Map the ring pinned at @path, writable; 0 or -errno. */
int ring_open(const char *path, struct ring *r);
/* The same of the map open as @fd, @writable for ring_free() (and then @fd
 * must be open for writing) */
int ring_open_fd(int fd, struct ring *r, int writable);
void ring_close(struct ring *r);
/* Copy slot @i into @out; 1 when it holds a record, 0 when free. */
int ring_read(const struct ring *r, __u32 i, struct fcaps_decision *out);
/* Free slot @i if it still holds record @seq. */
void ring_free(struct ring *r, __u32 i, __u64 seq);
/* The occupied slots. */
long ring_count(const struct ring *r);

#endif
