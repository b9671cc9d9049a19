// SPDX-License-Identifier: GPL-2.0
/*
 * load, unload, status, mode, set, decisions, policy: the BPF side of
 * fcapsctl. Everything lives pinned under FCAPS_PIN_DIR (maps by name,
 * programs under progs/, links under links/), so it outlives the loader.
 *
 * A load builds the whole set in a staging directory and renames it into
 * place; the programs do nothing until the config is armed, which is the
 * last step. A load killed at any step therefore leaves nothing that acts,
 * and the next load or unload removes what it left. FCAPS_FAULT=STEP makes
 * the loader exit at STEP, for the tests that prove it.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "bpfctl.h"
#include "capfile.h"
#include "config.h"
#include "policy.h"
#include "records.h"
#include "ring.h"
#include "layout.h"
#include "fcaps.skel.h"

#define PROGS_DIR FCAPS_PIN_DIR "/progs"
#define LINKS_DIR FCAPS_PIN_DIR "/links"
#define STAGING_DIR FCAPS_PIN_DIR "_staging"	/* bpffs refuses dots */
#define OLD_DIR FCAPS_PIN_DIR "_old"
#define LSM_LIST "/sys/kernel/security/lsm"

static const char *hook_names[FCAPS_NHOOKS] = {
	"exec", "kill", "setscheduler", "setnice", "setioprio", "xattr", "xattr_guard",
};

static const char *record_names[] = { "all", "denied", "none" };

/* FCAPS_FAULT=STEP: exit at STEP as a kill would, for the crash tests */
static void fault_point(const char *step)
{
	const char *want = getenv("FCAPS_FAULT");

	if (want && !strcmp(want, step)) {
		fprintf(stderr, "fcapsctl: FCAPS_FAULT: exiting at '%s'\n", step);
		_exit(99);
	}
}

/* One fcapsctl changes the pinned state at a time. */
static int lock_state(const char *cmd)
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

/* Is the bpf LSM in the active list? 1, 0, or -1 if it cannot be read. */
static int bpf_lsm_active(void)
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

/* what to do about another build's pins, for map_fd()'s message */
static const char *other_build_hint = "use that build, or 'fcapsctl unload' first";

/* A pinned map by @name, laid out as this build's; -1 with the reason
 * printed (errno EPROTO: another build's) */
static int map_fd(const char *name)
{
	char path[128];
	int fd, same;

	snprintf(path, sizeof(path), FCAPS_PIN_DIR "/%s", name);
	fd = bpf_obj_get(path);
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

/* Remove every pin under @root (and its progs/ and links/); how many. */
static int unpin_tree(const char *root)
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

/* What a killed load or unload left behind: nothing armed, so just go. */
static void remove_leftovers(void)
{
	int n = unpin_tree(STAGING_DIR) + unpin_tree(OLD_DIR);

	if (n)
		fprintf(stderr, "fcapsctl: removed %d pins left by an interrupted run\n", n);
}

/* What this kernel has, from its BTF: 1 or 0 for each name. */
static void kernel_features(int *tracepoints, int *skipcap)
{
	struct btf *btf = btf__load_vmlinux_btf();

	*tracepoints = *skipcap = 0;
	if (!btf)
		return;
	*tracepoints = btf__find_by_name_kind(btf, "btf_trace_fcaps_sched", BTF_KIND_TYPEDEF) >= 0;
	*skipcap = btf__find_by_name_kind(btf, "bpf_lsm_inode_xattr_skipcap", BTF_KIND_FUNC) >= 0;
	btf__free(btf);
}

/*
 * The policy's two maps (fcaps_policy_is_legacy()): [0] legacy-tagged
 * values, [1] the rest. A key is in one of them.
 */
struct policy_maps {
	int fd[2];
};

static int policy_maps_open(struct policy_maps *pm)
{
	pm->fd[0] = map_fd("policy");
	pm->fd[1] = pm->fd[0] < 0 ? -1 : map_fd("policy61");
	if (pm->fd[1] < 0) {
		if (pm->fd[0] >= 0)
			close(pm->fd[0]);
		return -1;
	}
	return 0;
}

static void policy_maps_close(struct policy_maps *pm)
{
	close(pm->fd[0]);
	close(pm->fd[1]);
}

/*
 * @flags BPF_NOEXIST: what the sync programs wrote meanwhile wins. A value
 * that is not legacy-tagged which does not fit its map is only predicted
 * (BPF enforces none): counted and warned of, not an error; a legacy one
 * that does not fit is.
 */
static int put_policy(const struct policy_maps *pm, const struct policy *p, __u32 gen,
		      __u64 flags)
{
	size_t lost = 0;

	for (size_t i = 0; i < p->n; i++) {
		struct fcaps_file_key key = p->v[i].key;
		int m = !fcaps_policy_is_legacy(&p->v[i].value);
		struct fcaps_policy_value old;

		key.gen = gen;
		if (flags == BPF_NOEXIST && !bpf_map_lookup_elem(pm->fd[!m], &key, &old))
			continue;
		if (!bpf_map_update_elem(pm->fd[m], &key, &p->v[i].value, flags)) {
			if (flags != BPF_NOEXIST)
				bpf_map_delete_elem(pm->fd[!m], &key);
			continue;
		}
		if (flags == BPF_NOEXIST && errno == EEXIST)
			continue;
		if (m && (errno == E2BIG || errno == ENOMEM)) {
			lost++;
			continue;
		}
		fprintf(stderr, "fcapsctl: policy map: adding %s: %s\n",
			p->v[i].path, strerror(errno));
		return -1;
	}
	if (lost)
		fprintf(stderr, "fcapsctl: warning: policy61 is full: %zu values of 6.1's formats "
			"not mirrored (BPF predicts those files as having none)\n", lost);
	return 0;
}

static int parse_mode(const char *s, __u16 *mode)
{
	if (!strcmp(s, "enforce"))
		*mode = FCAPS_MODE_ENFORCE;
	else if (!strcmp(s, "shadow"))
		*mode = FCAPS_MODE_SHADOW;
	else
		return -1;
	return 0;
}

/* The programs that keep the policy map true: attached before the scan. */
static int is_sync_prog(const struct bpf_program *prog)
{
	return !strncmp(bpf_program__name(prog), "fcaps_policy_", 13);
}

/* Attach (or, with @sync, only the sync programs) and keep the links. */
#define MAX_LINKS 48	/* more than the programs of one load */

static int attach_progs(struct fcaps_bpf *skel, int sync, struct bpf_link **links,
			const char **names, size_t *n)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, skel->obj) {
		if (!bpf_program__autoload(prog) || is_sync_prog(prog) != sync)
			continue;
		if (*n >= MAX_LINKS) {
			fprintf(stderr, "fcapsctl load: more than %d programs to attach "
				"(MAX_LINKS in %s)\n", MAX_LINKS, __FILE__);
			return -1;
		}
		links[*n] = bpf_program__attach(prog);
		if (!links[*n]) {
			fprintf(stderr, "fcapsctl load: attaching %s: %s\n",
				bpf_program__name(prog), strerror(errno));
			return -1;
		}
		names[(*n)++] = bpf_program__name(prog);
	}
	return 0;
}

/* Pin every program and link under @root/progs and @root/links. */
static int pin_all(struct fcaps_bpf *skel, struct bpf_link **links,
		   const char **names, size_t n, const char *root)
{
	struct bpf_program *prog;
	char path[256];
	size_t i = 0;

	bpf_object__for_each_program(prog, skel->obj) {
		if (!bpf_program__autoload(prog))
			continue;
		snprintf(path, sizeof(path), "%s/progs/%s", root, bpf_program__name(prog));
		if (bpf_program__pin(prog, path)) {
			fprintf(stderr, "fcapsctl load: pinning %s: %s\n", path, strerror(errno));
			return -1;
		}
	}
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/links/%s", root, names[i]);
		if (bpf_link__pin(links[i], path)) {
			fprintf(stderr, "fcapsctl load: pinning %s: %s\n", path, strerror(errno));
			return -1;
		}
		fault_point("pin-link");
	}
	return 0;
}

static int write_config(const struct fcaps_config *cfg);
static int read_config(struct fcaps_config *cfg);

int cmd_load(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "policy", required_argument, NULL, 'p' },
		{ "scan", required_argument, NULL, 's' },
		{ "record", required_argument, NULL, 'r' },
		{ "policy-max", required_argument, NULL, 'P' },
		{ "ceiling-max", required_argument, NULL, 'C' },
		{ "ceiling-buckets", required_argument, NULL, 'B' },
		{ "kernel-records", no_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	LIBBPF_OPTS(bpf_object_open_opts, open_opts, .pin_root_path = STAGING_DIR);
	unsigned long policy_max = 0, ceiling_max = 0, buckets = FCAPS_CEILING_BUCKETS;
	char *end;
	struct fcaps_config cfg = { .mode = FCAPS_MODE_SHADOW, .exec = 1, .kill = 1 };
	struct bpf_link *links[MAX_LINKS] = {};
	const char *names[MAX_LINKS] = {}, *scans[16];
	struct fcaps_bpf *skel = NULL;
	struct policy pol = {}, scanned = {};
	struct policy_maps pm;
	int c, bad = 0, tracepoints, skipcap, norec, kernel_records = 0, lsm, rc = 1;
	size_t nlinks = 0, nscans = 0;

	while ((c = getopt_long(argc, argv, "m:p:s:r:P:C:B:kh", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (parse_mode(optarg, &cfg.mode))
				return usage("load", "[--mode enforce|shadow] ...",
					     "--mode is enforce or shadow, not '%s'", optarg);
			break;
		case 'p':
			bad |= policy_parse_file(optarg, &pol);
			break;
		case 'r':
			for (cfg.record = 0; cfg.record < 3; cfg.record++)
				if (!strcmp(optarg, record_names[cfg.record]))
					break;
			if (cfg.record == 3)
				return usage("load", "[--record all|denied|none] ...",
					     "--record is all, denied or none, not '%s'", optarg);
			break;
		case 'P':
		case 'C': {
			unsigned long limit = c == 'P' ? FCAPS_MAX_POLICY : FCAPS_MAX_CEILINGS;
			unsigned long *n = c == 'P' ? &policy_max : &ceiling_max;
			const char *name = c == 'P' ? "--policy-max" : "--ceiling-max";

			errno = 0;
			*n = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || optarg[0] == '-' || !*n || *n > limit)
				return usage("load", "[--policy-max N] [--ceiling-max N] ...",
					     "%s is 1 to %lu, not '%s'", name, limit, optarg);
			break;
		}
		case 'B':
			errno = 0;
			buckets = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || optarg[0] == '-' || !buckets ||
			    buckets > FCAPS_CEILING_BUCKETS || (buckets & (buckets - 1)))
				return usage("load", "[--ceiling-buckets N] ...",
					     "--ceiling-buckets is a power of two from 1 to %u, not '%s'",
					     FCAPS_CEILING_BUCKETS, optarg);
			break;
		case 'k':
			kernel_records = 1;
			break;
		case 's':
			if (nscans == 16)
				return usage("load", "[--scan DIR]...", "%s", "at most 16 --scan");
			scans[nscans++] = optarg;
			break;
		case 'h':
			printf("usage: fcapsctl load [--mode enforce|shadow] [--record all|denied|none]\n"
			       "                     [--policy FILE]... [--scan DIR]... [--policy-max N]\n"
			       "                     [--ceiling-max N] [--ceiling-buckets N]\n"
			       "                     [--kernel-records]\n"
			       "Load and attach the fcaps BPF programs, pinned under %s.\n"
			       "The policy comes from the files and the scanned trees; a bad line\n"
			       "loads nothing. The default mode is shadow (record, allow). Enforce\n"
			       "needs the bpf LSM active (%s). --record chooses which decisions\n"
			       "are kept in the decisions map (all by default). --policy-max sizes\n"
			       "the policy map (%u entries by default); a value written once it is\n"
			       "full is lost, and 'status' says so. --ceiling-max sizes the map of\n"
			       "capped credentials (%u): an exec or a fork that would need one more\n"
			       "fails with ENOMEM. --ceiling-buckets (a power of two, %u by\n"
			       "default) is how many counts of live ceilings, by a hash of the\n"
			       "credentials' address, spare credentials without one a lookup;\n"
			       "1 puts every ceiling in one count (for tests).\n"
			       "--kernel-records (with --record all, on the patched kernel) also\n"
			       "records the kernel's own decisions, from its fcaps tracepoints,\n"
			       "into kdecisions under the seq of BPF's record of the same event:\n"
			       "what the differential compares.\n",
			       FCAPS_PIN_DIR, LSM_LIST,
			       FCAPS_MAX_POLICY, FCAPS_MAX_CEILINGS, FCAPS_CEILING_BUCKETS);
			return 0;
		default:
			return 2;
		}
	}
	if (optind < argc) {
		policy_free(&pol);
		return usage("load", "[--mode enforce|shadow] [--record all|denied|none] "
			     "[--policy FILE]... [--scan DIR]...", "unexpected argument '%s'",
			     argv[optind]);
	}
	if (kernel_records && cfg.record != FCAPS_RECORD_ALL) {
		policy_free(&pol);
		/* the kernel's records join BPF's by seq, which only --record all gives */
		return usage("load", "--record all --kernel-records", "%s",
			     "--kernel-records needs --record all");
	}
	if (bad) {
		policy_free(&pol);
		return fail("load", "%s", "bad policy: nothing loaded");
	}
	lsm = bpf_lsm_active();
	if (lsm != 1 && cfg.mode == FCAPS_MODE_ENFORCE) {
		policy_free(&pol);
		return fail("load", "the bpf LSM is not active (%s does not list bpf): "
			    "enforce would enforce nothing; boot with lsm=...,bpf", LSM_LIST);
	}
	if (lsm != 1)
		fprintf(stderr, "fcapsctl load: warning: the bpf LSM is not active (%s): "
			"exec decisions and the xattr guard will not run\n", LSM_LIST);
	if (lock_state("load") < 0)
		goto out;
	if (!access(FCAPS_PIN_DIR, F_OK)) {
		struct fcaps_config old;

		/* unreadable but there: maybe another build's, maybe armed */
		if (read_config(&old) ? errno != ENOENT : old.armed) {
			fail("load", "already loaded under %s ('fcapsctl unload' first)",
			     FCAPS_PIN_DIR);
			goto out;
		}
		/* renamed into place but never armed: a load that was killed */
		unpin_tree(FCAPS_PIN_DIR);
	}
	remove_leftovers();
	if (mkdir(STAGING_DIR, 0700) || mkdir(STAGING_DIR "/progs", 0700) ||
	    mkdir(STAGING_DIR "/links", 0700)) {
		fail("load", "creating the pin directories: %s", strerror(errno));
		goto err;
	}

	skel = fcaps_bpf__open_opts(&open_opts);
	if (!skel) {
		fail("load", "opening the BPF object: %s", strerror(errno));
		goto err;
	}
	kernel_features(&tracepoints, &skipcap);
	if (kernel_records && !tracepoints) {
		fail("load", "%s", "--kernel-records: this kernel has no fcaps tracepoints "
		     "(the patched kernel has)");
		goto err;
	}
	/* asked for only: the kernel's record of a signal costs about what BPF's
	 * decision and record together do (the bench note) */
	tracepoints = kernel_records;
	cfg.kernel_records = kernel_records;
	bpf_program__set_autoload(skel->progs.fcaps_kernel_exec, tracepoints);
	bpf_program__set_autoload(skel->progs.fcaps_kernel_kill, tracepoints);
	bpf_program__set_autoload(skel->progs.fcaps_kernel_sched, tracepoints);
	/* signals and scheduling: the recording programs, or the rule alone */
	norec = cfg.record == FCAPS_RECORD_NONE;
	bpf_program__set_autoload(skel->progs.fcaps_kill, !norec);
	bpf_program__set_autoload(skel->progs.fcaps_setscheduler, !norec);
	bpf_program__set_autoload(skel->progs.fcaps_setnice, !norec);
	bpf_program__set_autoload(skel->progs.fcaps_setioprio, !norec);
	bpf_program__set_autoload(skel->progs.fcaps_kill_norec, norec);
	bpf_program__set_autoload(skel->progs.fcaps_setscheduler_norec, norec);
	bpf_program__set_autoload(skel->progs.fcaps_setnice_norec, norec);
	bpf_program__set_autoload(skel->progs.fcaps_setioprio_norec, norec);
	/* exec: the record's programs, or the enforcing one alone */
	bpf_program__set_autoload(skel->progs.fcaps_exec_begin, !norec);
	bpf_program__set_autoload(skel->progs.fcaps_exec_check, !norec);
	bpf_program__set_autoload(skel->progs.fcaps_exec_enforce, !norec);
	bpf_program__set_autoload(skel->progs.fcaps_exec_refused, !norec);
	bpf_program__set_autoload(skel->progs.fcaps_exec_enforce_norec, norec);
	skel->rodata->lsm_runs_cap_xattr = skipcap;
	skel->rodata->fcaps_ceiling_mask = buckets - 1;
	/* config is a global (bpf/fcaps.bpf.h), pinned as the map it was */
	if (bpf_map__set_pin_path(skel->maps.data_config, STAGING_DIR "/config")) {
		fail("load", "setting the config's pin path: %s", strerror(errno));
		goto err;
	}
	if ((policy_max && (bpf_map__set_max_entries(skel->maps.policy, policy_max) ||
			    bpf_map__set_max_entries(skel->maps.policy61, policy_max))) ||
	    (ceiling_max && bpf_map__set_max_entries(skel->maps.ceilings, ceiling_max))) {
		fail("load", "sizing the policy and ceilings maps: %s", strerror(errno));
		goto err;
	}
	fault_point("open");
	if (fcaps_bpf__load(skel)) {
		fail("load", "loading the BPF programs: %s (see the libbpf log above)", strerror(errno));
		goto err;
	}
	fault_point("loaded");
	/* sync first, so that no change made during the scan is lost */
	if (attach_progs(skel, 1, links, names, &nlinks))
		goto err;
	fault_point("sync-attached");
	for (size_t i = 0; i < nscans; i++)
		if (policy_scan_dir(scans[i], &scanned))
			goto err_policy;
	pm.fd[0] = bpf_map__fd(skel->maps.policy);
	pm.fd[1] = bpf_map__fd(skel->maps.policy61);
	if (put_policy(&pm, &pol, 0, BPF_ANY) || put_policy(&pm, &scanned, 0, BPF_NOEXIST))
		goto err_policy;
	fault_point("policy-written");
	if (attach_progs(skel, 0, links, names, &nlinks))
		goto err;
	fault_point("attached");
	if (pin_all(skel, links, names, nlinks, STAGING_DIR))
		goto err;
	fault_point("pinned");
	if (rename(STAGING_DIR, FCAPS_PIN_DIR)) {
		fail("load", "renaming the staging directory into place: %s", strerror(errno));
		goto err;
	}
	fault_point("renamed");
	/* the mode last, in one update: from here on the programs act */
	cfg.armed = 1;
	if (fcaps_config_store(bpf_map__fd(skel->maps.data_config), &cfg)) {
		fail("load", "arming the config: %s", strerror(errno));
		unpin_tree(FCAPS_PIN_DIR);
		goto err;
	}
	printf("loaded: %zu programs attached (%s), mode %s, %zu policy entries%s%s\n",
	       nlinks, LINKS_DIR, cfg.mode ? "enforce" : "shadow", pol.n + scanned.n,
	       tracepoints ? ", kernel decisions from fcaps tracepoints" : "",
	       lsm == 1 ? "" : ", bpf LSM INACTIVE");
	rc = 0;
	goto out;
err_policy:
	fail("load", "%s", "writing the policy failed");
err:
	unpin_tree(STAGING_DIR);
	fprintf(stderr, "fcapsctl load: nothing left loaded\n");
out:
	for (size_t i = 0; i < nlinks; i++)
		bpf_link__destroy(links[i]);	/* the pins, if any, hold them */
	fcaps_bpf__destroy(skel);
	policy_free(&pol);
	policy_free(&scanned);
	return rc;
}

int cmd_unload(int argc, char **argv)
{
	struct fcaps_config cfg;
	int n;

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: fcapsctl unload\nDetach the fcaps BPF programs and remove %s.\n",
		       FCAPS_PIN_DIR);
		return 0;
	}
	if (argc > 1)
		return usage("unload", "", "unexpected argument '%s'", argv[1]);
	if (lock_state("unload") < 0)
		return 1;
	remove_leftovers();
	if (access(FCAPS_PIN_DIR, F_OK)) {
		printf("unloaded: nothing was loaded\n");
		return 0;
	}
	/* disarm first: from here on nothing acts, whatever happens next
	 * (another build's config cannot be written: its pins go armed) */
	other_build_hint = "removing its pins without disarming it first";
	if (!read_config(&cfg)) {
		cfg.armed = 0;
		write_config(&cfg);
	}
	fault_point("disarmed");
	if (rename(FCAPS_PIN_DIR, OLD_DIR))
		return fail("unload", "moving %s aside: %s", FCAPS_PIN_DIR, strerror(errno));
	fault_point("moved");
	n = unpin_tree(OLD_DIR);
	if (!access(OLD_DIR, F_OK))
		return fail("unload", "could not remove everything under %s", OLD_DIR);
	printf("unloaded: %d pins removed\n", n);
	return 0;
}

static int read_config(struct fcaps_config *cfg)
{
	int fd = map_fd("config");
	__u32 zero = 0;
	int rc;

	if (fd < 0)
		return -1;
	rc = bpf_map_lookup_elem(fd, &zero, cfg);
	close(fd);
	return rc;
}

static int write_config(const struct fcaps_config *cfg)
{
	int fd = map_fd("config");
	int rc;

	if (fd < 0)
		return -1;
	rc = fcaps_config_store(fd, cfg);
	close(fd);
	return rc;
}

/* A hash map's entries, or a decision ring's occupied slots (keysz 0) */
static long count_entries(const char *map, size_t keysz)
{
	char key[64], next[64];
	int fd = map_fd(map);
	struct ring r;
	long n = 0;

	if (fd < 0)
		return -1;
	if (!keysz) {
		n = ring_open_fd(fd, &r) ? -1 : ring_count(&r);
		ring_close(&r);
		close(fd);
		return n;
	}
	if (!bpf_map_get_next_key(fd, NULL, next))
		do {
			n++;
			memcpy(key, next, keysz);
		} while (!bpf_map_get_next_key(fd, key, next));
	close(fd);
	return n;
}

/* counters[hook], summed over the CPUs */
static void read_counters(int fd, __u32 hook, struct fcaps_counters *sum)
{
	int ncpu = libbpf_num_possible_cpus();
	struct fcaps_counters *c;

	memset(sum, 0, sizeof(*sum));
	if (ncpu <= 0 || !(c = calloc(ncpu, sizeof(*c))))
		return;
	if (!bpf_map_lookup_elem(fd, &hook, c)) {
		for (int i = 0; i < ncpu; i++) {
			sum->seen += c[i].seen;
			sum->allowed += c[i].allowed;
			sum->denied += c[i].denied;
			sum->errors += c[i].errors;
		}
	}
	free(c);
}

static json_object *jstr(const char *v) { return json_object_new_string(v); }
static json_object *ju64(unsigned long long v) { return json_object_new_uint64(v); }

/* How many steps the verifier took over each pinned program (of its
 * 1,000,000): {"name": verified_insns}; -1 where the kernel would not say */
static json_object *verified_steps(void)
{
	json_object *v = json_object_new_object();
	char path[sizeof(PROGS_DIR) + 256];
	struct dirent *e;
	DIR *d = opendir(PROGS_DIR);

	while (d && (e = readdir(d))) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		long long n = -1;
		int fd;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", PROGS_DIR, e->d_name);
		fd = bpf_obj_get(path);
		if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len))
			n = info.verified_insns;
		if (fd >= 0)
			close(fd);
		json_object_object_add(v, e->d_name, json_object_new_int64(n));
	}
	if (d)
		closedir(d);
	return v;
}

int cmd_status(int argc, char **argv)
{
	static const char *maps[] = { "policy", "policy61", "decisions", "kdecisions",
				      "ceilings", "ns_marks" };
	static const size_t keysz[] = { sizeof(struct fcaps_file_key),
					sizeof(struct fcaps_file_key), 0, 0, 8, 8 };
	struct fcaps_counters ctr[FCAPS_NHOOKS] = {};
	json_object *o, *progs, *fill, *counters;
	int json = 0, fd, lsm;
	struct fcaps_config cfg;
	struct dirent *e;
	DIR *d;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: fcapsctl status [--json]\nMode, switches, attached programs, "
			       "map fill and per-hook counters; --json also the verifier's\n"
			       "steps over each program (verified_insns, of 1,000,000).\n");
			return 0;
		} else {
			return usage("status", "[--json]", "unknown argument '%s'", argv[i]);
		}
	}
	if (read_config(&cfg))
		return 1;
	fd = map_fd("counters");
	for (__u32 h = 0; fd >= 0 && h < FCAPS_NHOOKS; h++)
		read_counters(fd, h, &ctr[h]);
	if (fd >= 0)
		close(fd);
	lsm = bpf_lsm_active();
	if (ctr[FCAPS_HOOK_XATTR].errors)
		fprintf(stderr, "fcapsctl status: ALARM: %llu security.capability writes are not "
			"in the policy map (full?)\n", (unsigned long long)ctr[FCAPS_HOOK_XATTR].errors);

	o = json_object_new_object();
	json_object_object_add(o, "mode", jstr(cfg.mode ? "enforce" : "shadow"));
	json_object_object_add(o, "exec", ju64(cfg.exec));
	json_object_object_add(o, "kill", ju64(cfg.kill));
	json_object_object_add(o, "nosuid_ignore", ju64(cfg.nosuid_ignore));
	json_object_object_add(o, "armed", ju64(cfg.armed));
	json_object_object_add(o, "record", jstr(cfg.record < 3 ? record_names[cfg.record] : "?"));
	json_object_object_add(o, "kernel_records", ju64(cfg.kernel_records));
	json_object_object_add(o, "ceilings_live", ju64(cfg.ceilings_live));
	json_object_object_add(o, "bpf_lsm", json_object_new_boolean(lsm == 1));
	json_object_object_add(o, "policy_lost", ju64(ctr[FCAPS_HOOK_XATTR].errors));
	progs = json_object_new_array();
	d = opendir(LINKS_DIR);
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			json_object_array_add(progs, jstr(e->d_name));
	if (d)
		closedir(d);
	json_object_object_add(o, "programs", progs);
	json_object_object_add(o, "verified_insns", verified_steps());
	fill = json_object_new_object();
	for (size_t m = 0; m < sizeof(maps) / sizeof(maps[0]); m++)
		json_object_object_add(fill, maps[m],
				       json_object_new_int64(count_entries(maps[m], keysz[m])));
	json_object_object_add(o, "maps", fill);
	counters = json_object_new_object();
	for (int h = 0; h < FCAPS_NHOOKS; h++) {
		json_object *c = json_object_new_object();

		json_object_object_add(c, "seen", ju64(ctr[h].seen));
		json_object_object_add(c, "allowed", ju64(ctr[h].allowed));
		json_object_object_add(c, "denied", ju64(ctr[h].denied));
		json_object_object_add(c, "errors", ju64(ctr[h].errors));
		json_object_object_add(counters, hook_names[h], c);
	}
	json_object_object_add(o, "counters", counters);
	if (json) {
		json_print(o);
		return 0;
	}
	printf("mode: %s\nswitches: exec=%u kill=%u nosuid_ignore=%u\narmed: %u\nceilings live: %u\n"
	       "record: %s%s\n"
	       "bpf LSM: %s\nprograms: %s\nmaps: %s\n", cfg.mode ? "enforce" : "shadow",
	       cfg.exec, cfg.kill, cfg.nosuid_ignore, cfg.armed, cfg.ceilings_live,
	       cfg.record < 3 ? record_names[cfg.record] : "?",
	       cfg.kernel_records ? ", and the kernel's own decisions (kdecisions)" : "",
	       lsm == 1 ? "active" : "NOT ACTIVE: exec decisions and the xattr guard do not run",
	       json_object_to_json_string_ext(progs, JSON_C_TO_STRING_PLAIN),
	       json_object_to_json_string_ext(fill, JSON_C_TO_STRING_PLAIN));
	printf("counters:\n");
	for (int h = 0; h < FCAPS_NHOOKS; h++)
		printf("  %-12s seen=%llu allowed=%llu denied=%llu errors=%llu\n", hook_names[h],
		       (unsigned long long)ctr[h].seen, (unsigned long long)ctr[h].allowed,
		       (unsigned long long)ctr[h].denied, (unsigned long long)ctr[h].errors);
	json_object_put(o);
	return 0;
}

int cmd_mode(int argc, char **argv)
{
	struct fcaps_config cfg;

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: fcapsctl mode enforce|shadow\n");
		return 0;
	}
	if (argc != 2 || parse_mode(argv[1], &cfg.mode))
		return usage("mode", "enforce|shadow", "%s", argc == 2 ?
			     "the mode is enforce or shadow" : "needs one argument");
	/* as load refuses it: enforce without the bpf LSM enforces nothing */
	if (cfg.mode == FCAPS_MODE_ENFORCE && bpf_lsm_active() != 1)
		return fail("mode", "the bpf LSM is not active (%s does not list bpf): "
			    "enforce would enforce nothing; boot with lsm=...,bpf", LSM_LIST);
	if (lock_state("mode") < 0 || read_config(&cfg))
		return 1;
	parse_mode(argv[1], &cfg.mode);
	return write_config(&cfg) ? fail("mode", "updating config: %s", strerror(errno)) : 0;
}

int cmd_set(int argc, char **argv)
{
	struct fcaps_config cfg;

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: fcapsctl set [exec=0|1] [kill=0|1] [nosuid_ignore=0|1]...\n"
		       "The BPF side's switches (SEMANTICS section 5).\n");
		return 0;
	}
	if (argc < 2)
		return usage("set", "exec=0|1 kill=0|1 nosuid_ignore=0|1", "%s",
			     "needs at least one switch");
	if (lock_state("set") < 0 || read_config(&cfg))
		return 1;
	for (int i = 1; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		__u32 *sw = NULL;

		if (eq && (!strcmp(eq + 1, "0") || !strcmp(eq + 1, "1"))) {
			*eq = 0;
			sw = !strcmp(argv[i], "exec") ? &cfg.exec :
			     !strcmp(argv[i], "kill") ? &cfg.kill :
			     !strcmp(argv[i], "nosuid_ignore") ? &cfg.nosuid_ignore : NULL;
			*eq = '=';
		}
		if (!sw)
			return usage("set", "exec=0|1 kill=0|1 nosuid_ignore=0|1",
				     "'%s' is not exec=0|1, kill=0|1 or nosuid_ignore=0|1", argv[i]);
		*sw = eq[1] == '1';
	}
	return write_config(&cfg) ? fail("set", "updating config: %s", strerror(errno)) : 0;
}

static const char *hook_name_of(const char *member, __u64 v)
{
	if (strcmp(member, "hook"))
		return NULL;
	return v < FCAPS_NHOOKS ? hook_names[v] : "?";
}

#define DECISIONS_USAGE "[--json] [--clear] [--map decisions|kdecisions]"

int cmd_decisions(int argc, char **argv)
{
	static const char *maps[] = { "decisions", "kdecisions" };
	int json = 0, clear = 0, only = -1;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (!strcmp(argv[i], "--clear")) {
			clear = 1;
		} else if (!strcmp(argv[i], "--map")) {
			if (i + 1 == argc || (strcmp(argv[i + 1], maps[0]) &&
					      strcmp(argv[i + 1], maps[1])))
				return usage("decisions", DECISIONS_USAGE, "--map takes "
					     "decisions or kdecisions, not '%s'",
					     i + 1 < argc ? argv[i + 1] : "");
			only = !strcmp(argv[++i], maps[1]);
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: fcapsctl decisions " DECISIONS_USAGE "\n"
			       "Print the BPF decisions and the kernel's (kdecisions), or those of\n"
			       "one map, in slot order, each from the record's BTF type; --clear\n"
			       "frees the slots of the records printed.\n");
			return 0;
		} else {
			return usage("decisions", DECISIONS_USAGE, "unknown argument '%s'",
				     argv[i]);
		}
	}
	for (int m = 0; m < 2; m++) {
		struct fcaps_decision d;
		struct records rec;
		struct ring r;
		int fd, err;

		if (only >= 0 && m != only)
			continue;
		fd = map_fd(maps[m]);
		if (fd < 0)
			return 1;
		err = records_open(fd, &rec);
		if (err) {
			close(fd);
			return fail("decisions", "reading the BTF type of %s: %s", maps[m],
				    strerror(-err));
		}
		err = ring_open_fd(fd, &r);
		close(fd);
		if (err) {
			records_close(&rec);
			return fail("decisions", "mapping %s: %s", maps[m], strerror(-err));
		}
		for (__u32 i = 0; i < FCAPS_MAX_DECISIONS; i++) {
			if (!ring_read(&r, i, &d))
				continue;
			if (json) {
				json_object *o = json_object_new_object();

				json_object_object_add(o, "map", json_object_new_string(maps[m]));
				records_add_json(&rec, &d, hook_name_of, o);
				json_print(o);
			} else {
				printf("%-10s ", maps[m]);
				records_print_text(&rec, &d);
			}
			if (clear)
				ring_free(&r, i, d.seq);
		}
		ring_close(&r);
		records_close(&rec);
	}
	return 0;
}

#define POLICY_USAGE "import [--replace] FILE | scan DIR... | add PATH [v1|v3] CAPTEXT | " \
	"add PATH hex:BYTES | del PATH | list [--json]"

static int policy_help(void)
{
	printf("usage: fcapsctl policy import [--replace] FILE\n"
	       "       fcapsctl policy scan DIR...\n"
	       "       fcapsctl policy add PATH [v1|v3] CAPTEXT | PATH hex:BYTES\n"
	       "       fcapsctl policy del PATH\n"
	       "       fcapsctl policy list [--json]\n"
	       "A policy file has one 'PATH CAPTEXT' per line ('#' comments); a bad\n"
	       "line is reported as FILE:LINE and nothing of the file is loaded.\n");
	return 0;
}

static void policy_list_map(int fd, const struct fcaps_config *cfg, int json)
{
	struct fcaps_file_key key, next;
	struct fcaps_policy_value v;
	int more;

	for (more = !bpf_map_get_next_key(fd, NULL, &next); more;) {
		struct fcaps_sets sets;
		enum fcaps_form form;
		const char *name;
		char *text = NULL, dev[32];

		key = next;
		more = !bpf_map_get_next_key(fd, &key, &next);
		if (key.gen != cfg->policy_gen || bpf_map_lookup_elem(fd, &key, &v))
			continue;
		form = fcaps_decode(v.value, v.len, &sets);
		if (form == FCAPS_WELL_FORMED)
			text = fcaps_sets_to_text(&sets);
		name = form == FCAPS_WELL_FORMED ?
		       (fcaps_le32(v.value) == FCAPS_V1_TAG ? "v1" : "v3") :
		       form == FCAPS_MALFORMED ? "malformed" :
		       v.len == FCAPS_LEN_UNREADABLE ? "unreadable" : "6.1-format";
		snprintf(dev, sizeof(dev), "%u:%u", kdev_major(key.dev), kdev_minor(key.dev));
		if (json) {
			json_object *o = json_object_new_object();

			json_object_object_add(o, "dev", json_object_new_string(dev));
			json_object_object_add(o, "ino", json_object_new_uint64(key.ino));
			json_object_object_add(o, "size", json_object_new_uint64(v.len));
			json_object_object_add(o, "form", json_object_new_string(name));
			json_object_object_add(o, "text", json_object_new_string(text ? text : ""));
			json_print(o);
		} else {
			printf("dev=%s ino=%llu size=%u %s %s\n", dev,
			       (unsigned long long)key.ino, v.len, name, text ? text : "");
		}
		free(text);
	}
}

static int policy_list(int json)
{
	struct policy_maps pm;
	struct fcaps_config cfg;

	if (policy_maps_open(&pm))
		return 1;
	if (read_config(&cfg)) {
		policy_maps_close(&pm);
		return 1;
	}
	policy_list_map(pm.fd[0], &cfg, json);
	policy_list_map(pm.fd[1], &cfg, json);
	policy_maps_close(&pm);
	return 0;
}

/* Remove every entry not of generation @keep (an old or aborted policy) */
static void drop_other_gens(const struct policy_maps *pm, __u32 keep)
{
	for (int m = 0; m < 2; m++) {
		struct fcaps_file_key key, next;
		int more = !bpf_map_get_next_key(pm->fd[m], NULL, &next);

		while (more) {
			key = next;
			more = !bpf_map_get_next_key(pm->fd[m], &key, &next);
			if (key.gen != keep)
				bpf_map_delete_elem(pm->fd[m], &key);
		}
	}
}

/*
 * import --replace: the new policy is written as the next generation beside
 * the current one and becomes the policy in one config update; a kill at
 * any step leaves the old policy or the new one, and the entries of the
 * other are dropped (now or by the next replace).
 */
static int replace_policy(const struct policy_maps *pm, const struct policy *pol)
{
	struct fcaps_config cfg;
	__u32 next;

	if (read_config(&cfg))
		return 1;
	drop_other_gens(pm, cfg.policy_gen);	/* what a killed replace left */
	next = cfg.policy_gen + 1;
	cfg.next_gen = next;
	if (write_config(&cfg))
		return fail("policy import", "updating the config: %s", strerror(errno));
	fault_point("replace-next-gen");
	if (put_policy(pm, pol, next, BPF_ANY))
		return 1;
	fault_point("replace-written");
	if (read_config(&cfg))
		return 1;
	cfg.policy_gen = next;
	if (write_config(&cfg))
		return fail("policy import", "switching to the new policy: %s", strerror(errno));
	fault_point("replace-switched");
	drop_other_gens(pm, next);
	return 0;
}

int cmd_policy(int argc, char **argv)
{
	struct fcaps_config cfg;
	struct policy_maps pm;
	struct policy pol = {};
	char err[512];
	int rc = 0;

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
		return policy_help();
	if (argc < 2)
		return usage("policy", POLICY_USAGE, "%s", "needs a subcommand");
	if (!strcmp(argv[1], "list") && (argc == 2 || (argc == 3 && !strcmp(argv[2], "--json"))))
		return policy_list(argc == 3);
	if (!strcmp(argv[1], "import") && (argc == 3 || (argc == 4 && !strcmp(argv[2], "--replace")))) {
		rc = policy_parse_file(argv[argc - 1], &pol);
	} else if (!strcmp(argv[1], "scan") && argc >= 3) {
		for (int i = 2; i < argc && !rc; i++)
			rc = policy_scan_dir(argv[i], &pol);
	} else if (!strcmp(argv[1], "add") && argc == 4) {
		rc = policy_add_text(&pol, argv[2], argv[3], err, sizeof(err));
		if (rc)
			fprintf(stderr, "fcapsctl policy add: %s\n", err);
	} else if (!strcmp(argv[1], "del") && argc == 3) {
		struct fcaps_file_key key;

		rc = policy_key(argv[2], &key);
		if (rc)
			return fail("policy del", "%s: %s", argv[2], policy_key_error(rc));
		if (lock_state("policy") < 0 || read_config(&cfg) || policy_maps_open(&pm))
			return 1;
		key.gen = cfg.policy_gen;
		/* in one map or the other */
		rc = bpf_map_delete_elem(pm.fd[0], &key) ? errno : 0;
		if (rc == ENOENT)
			rc = bpf_map_delete_elem(pm.fd[1], &key) ? errno : 0;
		policy_maps_close(&pm);
		if (rc == ENOENT)
			return fail("policy del", "%s has no policy entry", argv[2]);
		return rc ? fail("policy del", "updating the policy map: %s", strerror(rc)) : 0;
	} else {
		return usage("policy", POLICY_USAGE, "bad arguments to 'policy %s'", argv[1]);
	}
	if (rc) {
		policy_free(&pol);
		return fail("policy", "%s", "nothing changed");
	}
	if (lock_state("policy") < 0 || read_config(&cfg)) {
		policy_free(&pol);
		return 1;
	}
	if (policy_maps_open(&pm)) {
		policy_free(&pol);
		return 1;
	}
	if (argc == 4 && !strcmp(argv[2], "--replace"))
		rc = replace_policy(&pm, &pol);
	else
		/* a scan adds what is missing: an entry there is the sync's,
		 * which may be newer than what the scan read */
		rc = put_policy(&pm, &pol, cfg.policy_gen,
				!strcmp(argv[1], "scan") ? BPF_NOEXIST : BPF_ANY) ? 1 : 0;
	if (!rc)
		printf("policy: %zu entries written\n", pol.n);
	policy_maps_close(&pm);
	policy_free(&pol);
	return rc;
}
