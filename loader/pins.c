// SPDX-License-Identifier: GPL-2.0
/*
 * The pinned state (pins.h). A load builds the whole set in a staging
 * directory and renames it into place; the programs do nothing until the
 * config is armed, which is the last step. A load killed at any step
 * therefore leaves nothing that acts, and the next load or unload removes
 * what it left. FCAPS_FAULT=STEP makes the loader exit at STEP, for the
 * tests that prove it; FCAPS_PAUSE=STEP stops it there (SIGSTOP) until
 * it is continued, for the tests that change files in between.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "config.h"
#include "layout.h"
#include "main.h"
#include "pins.h"
#include "fcaps.skel.h"

void fault_point(const char *step)
{
	const char *want = getenv("FCAPS_FAULT");

	if (want && !strcmp(want, step)) {
		fprintf(stderr, "fcapsctl: FCAPS_FAULT: exiting at '%s'\n", step);
		_exit(99);
	}
	want = getenv("FCAPS_PAUSE");
	if (want && !strcmp(want, step))
		raise(SIGSTOP);
}

int lock_state(const char *cmd)
{
	int fd = open("/sys/fs/bpf", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0 || flock(fd, LOCK_EX)) {
		fprintf(stderr, "fcapsctl %s: locking /sys/fs/bpf: %s\n", cmd, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;	/* closed at exit, which unlocks */
}

int bpf_lsm_active(void)
{
	char buf[512] = "", *tok, *save;
	FILE *f = fopen(LSM_LIST, "r");

	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (!strcmp(tok, "bpf"))
			return 1;
	return 0;
}

/*
 * Is the map @fd, pinned as @name, laid out as this fcapsctl's own? Pins
 * outlive the loader, so they may be another build's (mixed before a
 * reboot, a planted build's, a later version's): whose records, read and
 * written here, would put every field at the wrong offset. 1 yes, 0 no,
 * -1 it cannot tell (errno).
 */
static int same_layout(int fd, const char *name)
{
	static struct fcaps_bpf *own;
	static struct btf *pinned;
	static __u32 pinned_id;
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	const struct bpf_map *map;
	const struct btf *btf;
	char *ours, *theirs;
	int value_type, same;

	if (!own && !(own = fcaps_bpf__open()))
		return -1;
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -1;
	btf = bpf_object__btf(own->obj);
	if (!strcmp(name, "config")) {
		/* a global's section: its type is the section's (libbpf) */
		map = own->maps.data_config;
		value_type = btf__find_by_name_kind(btf, ".data.config", BTF_KIND_DATASEC);
	} else {
		map = bpf_object__find_map_by_name(own->obj, name);
		value_type = map ? (int)bpf_map__btf_value_type_id(map) : -1;
	}
	if (!map || value_type < 0) {
		errno = ENOENT;
		return -1;
	}
	if (info.btf_id && info.btf_id != pinned_id) {
		btf__free(pinned);
		pinned = btf__load_from_kernel_by_id(info.btf_id);
		pinned_id = pinned ? info.btf_id : 0;
		if (!pinned)
			return -1;
	}
	ours = fcaps_layout(btf, bpf_map__btf_key_type_id(map), bpf_map__key_size(map),
			    value_type, bpf_map__value_size(map));
	theirs = fcaps_layout(info.btf_id ? pinned : NULL, info.btf_key_type_id, info.key_size,
			      info.btf_value_type_id, info.value_size);
	same = ours && theirs ? !strcmp(ours, theirs) : -1;
	if (same < 0)
		errno = ENOMEM;
	free(ours);
	free(theirs);
	return same;
}

static const char *other_build_hint = "use that build, or 'fcapsctl unload' first";

void map_fd_hint(const char *hint)
{
	other_build_hint = hint;
}

int map_fd(const char *name, int rdonly)
{
	LIBBPF_OPTS(bpf_obj_get_opts, opts, .file_flags = rdonly ? BPF_F_RDONLY : 0);
	char path[128];
	int fd, same;

	snprintf(path, sizeof(path), FCAPS_PIN_DIR "/%s", name);
	fd = bpf_obj_get_opts(path, &opts);
	if (fd < 0) {
		fprintf(stderr, "fcapsctl: opening %s: %s%s\n", path, strerror(errno),
			errno == ENOENT ? " (not loaded? try 'fcapsctl load')" : "");
		return -1;
	}
	same = same_layout(fd, name);
	if (same == 1)
		return fd;
	if (same == 0) {
		fprintf(stderr, "fcapsctl: %s was pinned by another build of fcapsctl: its "
			"records are laid out differently from this one's; %s\n", path,
			other_build_hint);
		errno = EPROTO;
	} else {
		fprintf(stderr, "fcapsctl: %s: cannot compare its layout with this build's: %s\n",
			path, strerror(errno));
	}
	close(fd);
	return -1;
}

int unpin_tree(const char *root)
{
	const char *subs[] = { "/links", "/progs", "" };
	int removed = 0;

	for (size_t i = 0; i < 3; i++) {
		char dir[256], path[512];
		struct dirent *e;
		DIR *d;

		snprintf(dir, sizeof(dir), "%s%s", root, subs[i]);
		d = opendir(dir);
		if (!d)
			continue;
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			if (!unlink(path))
				removed++;
		}
		closedir(d);
		rmdir(dir);
	}
	return removed;
}

/*
 * An unlinked pin puts its link when bpffs destroys the inode; on 6.12
 * that last put releases the link from a worker (bpf_link_put()), so
 * unlink returns with the program still attached, and a descriptor held
 * elsewhere keeps it attached on any line. So unload notes the ids of the
 * tree's links and their programs first, and waits until the kernel has
 * none of them left.
 */
struct tree_ids {
	__u32 link, prog;
};

static int tree_ids(const char *root, struct tree_ids *ids, int max)
{
	char dir[256], path[512];
	struct dirent *e;
	int n = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/links", root);
	d = opendir(dir);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		struct bpf_link_info info = {};
		__u32 len = sizeof(info);
		int fd;

		if (e->d_name[0] == '.')
			continue;
		if (n == max) {
			n = -1;
			break;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		fd = bpf_obj_get(path);
		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len)) {
			if (fd >= 0)
				close(fd);
			n = -1;
			break;
		}
		ids[n].link = info.id;
		ids[n++].prog = info.prog_id;
		close(fd);
	}
	closedir(d);
	return n;
}

static __u64 now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

static int id_alive(__u32 id, int link)
{
	int fd = link ? bpf_link_get_fd_by_id(id) : bpf_prog_get_fd_by_id(id);

	if (fd < 0)
		return errno != ENOENT;
	close(fd);
	return 1;
}

int unpin_tree_detached(const char *root)
{
	struct tree_ids ids[MAX_TREE_LINKS];
	int n = tree_ids(root, ids, MAX_TREE_LINKS), removed, links = 0, progs = 0;

	if (n < 0) {
		fprintf(stderr, "fcapsctl: %s/links: cannot read every link's id; not unpinned\n",
			root);
		return -1;
	}
	removed = unpin_tree(root);
	for (__u64 end = now_ms() + 5000; now_ms() < end; usleep(10000)) {
		links = progs = 0;
		for (int i = 0; i < n; i++) {
			links += id_alive(ids[i].link, 1);
			progs += id_alive(ids[i].prog, 0);
		}
		if (!links && !progs)
			return removed;
	}
	if (links) {
		fprintf(stderr, "fcapsctl: %d links are still attached 5 s after their pins went: "
			"another process holds them (bpftool link show)\n", links);
		return -1;
	}
	fprintf(stderr, "fcapsctl: warning: %d programs, detached, are still held by another "
		"process (bpftool prog show)\n", progs);
	return removed;
}

void remove_leftovers(void)
{
	int n = unpin_tree(STAGING_DIR) + unpin_tree(OLD_DIR);

	if (n)
		fprintf(stderr, "fcapsctl: removed %d pins left by an interrupted run\n", n);
}

int read_config(struct fcaps_config *cfg)
{
	int fd = map_fd("config", 1);
	__u32 zero = 0;
	int rc;

	if (fd < 0)
		return -1;
	rc = bpf_map_lookup_elem(fd, &zero, cfg);
	close(fd);
	return rc;
}

int write_config(const struct fcaps_config *cfg)
{
	int fd = map_fd("config", 0);
	int rc;

	if (fd < 0)
		return -1;
	rc = fcaps_config_store(fd, cfg);
	close(fd);
	return rc;
}

int parse_mode(const char *s, __u16 *mode)
{
	if (!strcmp(s, "enforce"))
		*mode = FCAPS_MODE_ENFORCE;
	else if (!strcmp(s, "shadow"))
		*mode = FCAPS_MODE_SHADOW;
	else
		return -1;
	return 0;
}

/* An old load in the way: refused if armed, removed if a killed one's */
int clear_old_load(void)
{
	struct fcaps_config old;

	if (access(FCAPS_PIN_DIR, F_OK))
		return 0;
	/* unreadable but there: maybe another build's, maybe armed */
	if (read_config(&old) ? errno != ENOENT : old.armed)
		return p_err("load", "already loaded under %s ('fcapsctl unload' first)",
			     FCAPS_PIN_DIR);
	/* renamed into place but never armed: a load that was killed */
	unpin_tree(FCAPS_PIN_DIR);
	return 0;
}
