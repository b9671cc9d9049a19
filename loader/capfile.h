/* SPDX-License-Identifier: GPL-2.0 */
/* Legacy security.capability values as files and capability text. */
#ifndef FCAPS_CAPFILE_H
#define FCAPS_CAPFILE_H

#include <linux/types.h>
#include <stddef.h>
#include "fcaps.h"

/* Parse libcap text ("cap_net_raw,cap_kill+ep cap_net_admin+i") into sets.
 * Returns 0, or -1 with a message in @err. */
int fcaps_sets_from_text(const char *text, struct fcaps_sets *sets,
			 char *err, size_t errlen);

/* Capability text for @sets, as cap_to_text() prints it; free() it. */
char *fcaps_sets_to_text(const struct fcaps_sets *sets);

/* Write @sets to @path as a legacy value. @tag 0 picks v1 when the sets fit
 * in 32 bits, else v3. Returns 0 or -errno. */
int fcaps_write_file(const char *path, const struct fcaps_sets *sets,
		     __u32 tag);

/* Read @path's security.capability: its first FCAPS_MAX_SIZE bytes into
 * @buf and its full size into @len. Returns 0, -ENODATA, or -errno. */
int fcaps_read_file(const char *path, __u8 *buf, __u32 *len);

/* The same of the file open as @fd (not O_PATH). */
int fcaps_read_fd(int fd, __u8 *buf, __u32 *len);

#endif /* FCAPS_CAPFILE_H */
