/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pinned state under FCAPS_PIN_DIR, which outlives the loader: maps by
 * name, programs under progs/, links under links/. Every command that
 * reads or changes it goes through here.
 */
#ifndef FCAPS_PINS_H
#define FCAPS_PINS_H

#include <linux/types.h>
#include "fcaps.h"

#define PROGS_DIR FCAPS_PIN_DIR "/progs"
#define LINKS_DIR FCAPS_PIN_DIR "/links"
#define STAGING_DIR FCAPS_PIN_DIR "_staging"	/* bpffs refuses dots */
#define OLD_DIR FCAPS_PIN_DIR "_old"
#define LSM_LIST "/sys/kernel/security/lsm"

/* FCAPS_FAULT=STEP: exit at STEP as a kill would, for the crash tests;
 * FCAPS_PAUSE=STEP: stop there until continued */
void fault_point(const char *step);

/* One fcapsctl changes the pinned state at a time: an fd to keep, or -1
 * with the error printed. */
int lock_state(const char *cmd);

/* Is the bpf LSM in the active list? 1, 0, or -1 if it cannot be read. */
int bpf_lsm_active(void);

/*
 * The map pinned as FCAPS_PIN_DIR/@name, checked to be laid out as this
 * build's (pins may be another build's); -1 with the reason printed
 * (errno EPROTO: another build's). @rdonly opens it read-only, as every
 * command that only reads does.
 */
int map_fd(const char *name, int rdonly);
/* What to do about another build's pins, for map_fd()'s message */
void map_fd_hint(const char *hint);

/* Remove every pin under @root (and its progs/ and links/); how many. */
int unpin_tree(const char *root);
/* unload: unpin_tree(), then wait until no link or program of it is left;
 * -1 if a link could not be read or is still attached (another holder) */
#define MAX_TREE_LINKS	256
int unpin_tree_detached(const char *root);
/* What a killed load or unload left behind: nothing armed, so just go. */
void remove_leftovers(void);

/* Before a load: an old one under FCAPS_PIN_DIR refused if armed (1, the
 * error printed), removed if a killed load's (0) */
int clear_old_load(void);

/* The config map's one value; 0 or -1 with the error printed */
int read_config(struct fcaps_config *cfg);
int write_config(const struct fcaps_config *cfg);
/* "enforce" or "shadow" into @mode; 0, or -1 for anything else */
int parse_mode(const char *s, __u16 *mode);

#endif
