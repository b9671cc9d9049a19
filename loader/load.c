// SPDX-License-Identifier: GPL-2.0
/*
 * load, unload: the fcaps BPF programs, attached and pinned under
 * FCAPS_PIN_DIR (pins.c says how a load stays crash-safe).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "config.h"
#include "filekey.h"
#include "main.h"
#include "pins.h"
#include "policyfile.h"
#include "policymap.h"
#include "progs.h"
#include "kfeatures.h"
#include "scan.h"
#include "fcaps.skel.h"

static const char load_usage[] =
	"usage: fcapsctl load [--mode enforce|shadow] [--record all|denied|none]\n"
	"                     [--policy FILE]... [--scan DIR]... [--policy-max N]\n"
	"                     [--ceiling-max N] [--ceiling-buckets N] [--mark-max N]\n"
	"                     [--kernel-records]\n"
	"       fcapsctl unload\n"
	"\n"
	"load loads and attaches the fcaps BPF programs, pinned under " FCAPS_PIN_DIR ".\n"
	"The policy comes from the files and the scanned trees; a bad line, or a\n"
	"file whose value cannot be read, loads nothing. The default mode is\n"
	"shadow (record, allow). Enforce needs the bpf LSM active (" LSM_LIST ").\n"
	"--record chooses which decisions are kept in the decisions map (all by\n"
	"default). --policy-max sizes the policy map; a value written once it is\n"
	"full is lost, and 'status' says so. --ceiling-max sizes the map of capped\n"
	"credentials: an exec or a fork that would need one more fails with\n"
	"ENOMEM. --ceiling-buckets (a power of two) is how many counts of live\n"
	"ceilings, by a hash of the credentials' address, spare credentials\n"
	"without one a lookup; 1 puts every ceiling in one count (for tests).\n"
	"--mark-max (65536 by default) sizes the two maps of marks: descriptor\n"
	"tables that hold one of fcaps' maps (held) and user namespaces made by\n"
	"capped creators (ns_marks). A namespace whose mark does not fit is\n"
	"refused (ENOMEM); a table whose mark does not fit makes bpf() read-only\n"
	"for every caller without CAP_SYS_ADMIN until the next load (fail closed).\n"
	"--kernel-records (with --record all, on the patched kernel) also records\n"
	"the kernel's own decisions, from its fcaps tracepoints, into kdecisions\n"
	"under the seq of BPF's record of the same event: what the differential\n"
	"compares.\n"
	"unload detaches the programs and removes " FCAPS_PIN_DIR ".\n";

static const char *const record_names[] = { "all", "denied", "none" };

/* What a load is asked for */
struct load_opts {
	struct fcaps_config cfg;
	unsigned long policy_max, ceiling_max, buckets, mark_max;
	int kernel_records;
	const char *scans[16];
	size_t nscans;
	struct policy pol;
	int bad_policy;
	int done;		/* nothing to load: --help, or a usage error */
};

static int parse_count(const char *arg, unsigned long max, int pow2, unsigned long *n)
{
	char *end;

	errno = 0;
	*n = strtoul(arg, &end, 10);
	return errno || *end || !*arg || arg[0] == '-' || !*n || *n > max ||
	       (pow2 && (*n & (*n - 1)));
}

/* --policy-max, --ceiling-max, --mark-max (@c): 1 to the maps' own sizes */
static int parse_max(int c, const char *arg, struct load_opts *o)
{
	const char *name = c == 'P' ? "policy" : c == 'C' ? "ceiling" : "mark";
	unsigned long max = c == 'P' ? FCAPS_MAX_POLICY :
			    c == 'C' ? FCAPS_MAX_CEILINGS : FCAPS_MAX_MARKS;

	if (!parse_count(arg, max, 0, c == 'P' ? &o->policy_max :
				      c == 'C' ? &o->ceiling_max : &o->mark_max))
		return 0;
	return p_usage("load", load_usage, "--%s-max is 1 to %lu, not '%s'", name, max, arg);
}

/* 0, or the exit status of a usage error */
static int parse_load(int argc, char **argv, struct load_opts *o)
{
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "policy", required_argument, NULL, 'p' },
		{ "scan", required_argument, NULL, 's' },
		{ "record", required_argument, NULL, 'r' },
		{ "policy-max", required_argument, NULL, 'P' },
		{ "ceiling-max", required_argument, NULL, 'C' },
		{ "ceiling-buckets", required_argument, NULL, 'B' },
		{ "mark-max", required_argument, NULL, 'M' },
		{ "kernel-records", no_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c, done = 0;

	while ((c = next_opt(argc, argv, "m:p:s:r:P:C:B:M:kh", opts, "load", load_usage,
			     &done)) != -1) {
		switch (c) {
		case 'm':
			if (parse_mode(optarg, &o->cfg.mode))
				return p_usage("load", load_usage,
					       "--mode is enforce or shadow, not '%s'", optarg);
			break;
		case 'p':
			o->bad_policy |= policy_parse_file(optarg, &o->pol);
			break;
		case 'r':
			for (o->cfg.record = 0; o->cfg.record < 3; o->cfg.record++)
				if (!strcmp(optarg, record_names[o->cfg.record]))
					break;
			if (o->cfg.record == 3)
				return p_usage("load", load_usage,
					       "--record is all, denied or none, not '%s'", optarg);
			break;
		case 'P':
		case 'C':
		case 'M':
			if (parse_max(c, optarg, o))
				return 2;
			break;
		case 'B':
			if (parse_count(optarg, FCAPS_CEILING_BUCKETS, 1, &o->buckets))
				return p_usage("load", load_usage, "--ceiling-buckets is a power of "
					       "two from 1 to %u, not '%s'", FCAPS_CEILING_BUCKETS,
					       optarg);
			break;
		case 'k':
			o->kernel_records = 1;
			break;
		case 's':
			if (o->nscans == 16)
				return p_usage("load", load_usage, "at most 16 --scan");
			o->scans[o->nscans++] = optarg;
			break;
		default:	/* --help (done 0) or a bad option (done 2) */
			o->done = 1;
			return done;
		}
	}
	if (optind < argc)
		return p_usage("load", load_usage, "unexpected argument '%s'", argv[optind]);
	/* the kernel's records join BPF's by seq, which only --record all gives */
	if (o->kernel_records && o->cfg.record != FCAPS_RECORD_ALL)
		return p_usage("load", load_usage, "--kernel-records needs --record all");
	return 0;
}

/* Open, size and load the object as @o asks; NULL with the error printed */
static struct fcaps_bpf *open_and_load(struct load_opts *o, int *tracepoints)
{
	LIBBPF_OPTS(bpf_object_open_opts, open_opts, .pin_root_path = STAGING_DIR);
	struct fcaps_bpf *skel = fcaps_bpf__open_opts(&open_opts);
	struct kernel_features f;

	if (!skel) {
		p_err("load", "opening the BPF object: %s", strerror(errno));
		return NULL;
	}
	kernel_features(&f);
	if (o->kernel_records && !f.tracepoints) {
		p_err("load", "--kernel-records: this kernel has no fcaps tracepoints "
		      "(the patched kernel has)");
		goto err;
	}
	/* asked for only: the kernel's record of a signal costs about what BPF's
	 * decision and record together do */
	*tracepoints = o->kernel_records;
	o->cfg.kernel_records = o->kernel_records;
	if (choose_progs(skel, o->cfg.record != FCAPS_RECORD_NONE, o->kernel_records,
			 f.setattr_idmap))
		goto err;
	skel->rodata->lsm_runs_cap_xattr = f.skipcap;
	skel->rodata->fcaps_ceiling_mask = o->buckets - 1;
	/* config is a global (bpf/fcaps.bpf.h), pinned as the map it was */
	if (bpf_map__set_pin_path(skel->maps.data_config, STAGING_DIR "/config")) {
		p_err("load", "setting the config's pin path: %s", strerror(errno));
		goto err;
	}
	if ((o->policy_max && (bpf_map__set_max_entries(skel->maps.policy, o->policy_max) ||
			       bpf_map__set_max_entries(skel->maps.policy61, o->policy_max))) ||
	    (o->ceiling_max && bpf_map__set_max_entries(skel->maps.ceilings, o->ceiling_max)) ||
	    (o->mark_max && (bpf_map__set_max_entries(skel->maps.held, o->mark_max) ||
			     bpf_map__set_max_entries(skel->maps.ns_marks, o->mark_max)))) {
		p_err("load", "sizing the policy, ceilings and marks maps: %s", strerror(errno));
		goto err;
	}
	fault_point("open");
	if (fcaps_bpf__load(skel)) {
		p_err("load", "loading the BPF programs: %s (see the libbpf log above)",
		      strerror(errno));
		goto err;
	}
	fault_point("loaded");
	return skel;
err:
	fcaps_bpf__destroy(skel);
	return NULL;
}

/*
 * What the integrity programs tell fcaps' own objects and directories by
 * (bpf/integrity.bpf.c): the load's BTF object, and the pin directories'
 * inodes, written before the config is armed. 0 or -1 with the error.
 */
static int record_identity(struct fcaps_bpf *skel, struct fcaps_config *cfg)
{
	static const char *const dirs[3] = { FCAPS_PIN_DIR, PROGS_DIR, LINKS_DIR };
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	struct stat st;

	if (bpf_obj_get_info_by_fd(bpf_map__fd(skel->maps.counters), &info, &len) ||
	    !info.btf_id) {
		p_err("load", "reading the id of the programs' BTF: %s", strerror(errno));
		return -1;
	}
	skel->bss->fcaps_own_btf = info.btf_id;
	for (int i = 0; i < 3; i++) {
		if (stat(dirs[i], &st)) {
			p_err("load", "%s: %s", dirs[i], strerror(errno));
			return -1;
		}
		cfg->pin_dev = kernel_dev(st.st_dev);
		cfg->pin_ino[i] = st.st_ino;
	}
	return 0;
}

int do_load(int argc, char **argv)
{
	struct load_opts o = {
		.cfg = { .mode = FCAPS_MODE_SHADOW, .exec = 1, .kill = 1 },
		.buckets = FCAPS_CEILING_BUCKETS,
	};
	struct bpf_link *links[MAX_LINKS] = {};
	const char *names[MAX_LINKS] = {};
	struct fcaps_bpf *skel = NULL;
	struct policy scanned = {};
	struct policy_maps pm;
	int tracepoints, lsm, rc;
	size_t nlinks = 0;

	rc = parse_load(argc, argv, &o);
	if (!rc && o.done) {
		policy_free(&o.pol);
		return 0;
	}
	if (!rc && o.bad_policy)
		rc = p_err("load", "bad policy: nothing loaded");
	if (rc) {
		policy_free(&o.pol);
		return rc;
	}
	rc = 1;
	lsm = bpf_lsm_active();
	if (lsm != 1 && o.cfg.mode == FCAPS_MODE_ENFORCE) {
		policy_free(&o.pol);
		return p_err("load", "the bpf LSM is not active (%s does not list bpf): "
			     "enforce would enforce nothing; boot with lsm=...,bpf", LSM_LIST);
	}
	if (lsm != 1)
		p_warn("load", "the bpf LSM is not active (%s): exec decisions and the xattr "
		       "guard will not run", LSM_LIST);
	if (lock_state("load") < 0 || clear_old_load())
		goto out;
	remove_leftovers();
	if (mkdir(STAGING_DIR, 0700) || mkdir(STAGING_DIR "/progs", 0700) ||
	    mkdir(STAGING_DIR "/links", 0700)) {
		p_err("load", "creating the pin directories: %s", strerror(errno));
		goto err;
	}
	skel = open_and_load(&o, &tracepoints);
	if (!skel)
		goto err;
	/* sync first, so that no change made during the scan is lost */
	if (attach_progs(skel, SYNC, links, names, &nlinks))
		goto err;
	fault_point("sync-attached");
	/* a value removed while the scan runs leaves a tombstone */
	o.cfg.scanning = 1;
	if (fcaps_config_store(bpf_map__fd(skel->maps.data_config), &o.cfg)) {
		p_err("load", "writing the config: %s", strerror(errno));
		goto err;
	}
	for (size_t i = 0; i < o.nscans; i++)
		if (policy_scan_dir(o.scans[i], &scanned))
			goto err_policy;
	fault_point("scanned");
	pm.fd[0] = bpf_map__fd(skel->maps.policy);
	pm.fd[1] = bpf_map__fd(skel->maps.policy61);
	pm.removed = bpf_map__fd(skel->maps.scan_removed);
	pm.fresh = 1;
	if (put_policy(&pm, &o.pol, 0, BPF_ANY) || put_policy(&pm, &scanned, 0, BPF_NOEXIST))
		goto err_policy;
	o.cfg.scanning = 0;
	fault_point("policy-written");
	if (attach_progs(skel, MAIN, links, names, &nlinks))
		goto err;
	fault_point("attached");
	if (pin_all(skel, links, names, nlinks, STAGING_DIR))
		goto err;
	fault_point("pinned");
	if (rename(STAGING_DIR, FCAPS_PIN_DIR)) {
		p_err("load", "renaming the staging directory into place: %s", strerror(errno));
		goto err;
	}
	fault_point("renamed");
	if (record_identity(skel, &o.cfg))
		goto err_pinned;
	/* the mode last, in one update: from here on the programs act */
	o.cfg.armed = 1;
	if (fcaps_config_store(bpf_map__fd(skel->maps.data_config), &o.cfg)) {
		p_err("load", "arming the config: %s", strerror(errno));
		goto err_pinned;
	}
	printf("loaded: %zu programs attached (%s), mode %s, %zu policy entries%s%s\n",
	       nlinks, LINKS_DIR, o.cfg.mode ? "enforce" : "shadow", o.pol.n + scanned.n,
	       tracepoints ? ", kernel decisions from fcaps tracepoints" : "",
	       lsm == 1 ? "" : ", bpf LSM INACTIVE");
	rc = 0;
	goto out;
err_pinned:
	unpin_tree(FCAPS_PIN_DIR);
	goto err;
err_policy:
	p_err("load", "writing the policy failed");
err:
	unpin_tree(STAGING_DIR);
	fprintf(stderr, "fcapsctl load: nothing left loaded\n");
out:
	for (size_t i = 0; i < nlinks; i++)
		bpf_link__destroy(links[i]);	/* the pins, if any, hold them */
	fcaps_bpf__destroy(skel);
	policy_free(&o.pol);
	policy_free(&scanned);
	return rc;
}

int do_unload(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct fcaps_config cfg;
	int c, n, done;

	while ((c = next_opt(argc, argv, "h", opts, "unload", load_usage, &done)) != -1)
		return done;
	if (optind < argc)
		return p_usage("unload", load_usage, "unexpected argument '%s'", argv[optind]);
	if (lock_state("unload") < 0)
		return 1;
	remove_leftovers();
	if (access(FCAPS_PIN_DIR, F_OK)) {
		printf("unloaded: nothing was loaded\n");
		return 0;
	}
	/* disarm first: from here on nothing acts, whatever happens next
	 * (another build's config cannot be written: its pins go armed) */
	map_fd_hint("removing its pins without disarming it first");
	if (!read_config(&cfg)) {
		cfg.armed = 0;
		write_config(&cfg);
	}
	fault_point("disarmed");
	if (rename(FCAPS_PIN_DIR, OLD_DIR))
		return p_err("unload", "moving %s aside: %s", FCAPS_PIN_DIR, strerror(errno));
	fault_point("moved");
	_Static_assert(MAX_LINKS <= MAX_TREE_LINKS, "unload waits for every link of a load");
	n = unpin_tree_detached(OLD_DIR);
	if (n < 0)
		return p_err("unload", "%s: its links are not all gone", OLD_DIR);
	if (!access(OLD_DIR, F_OK))
		return p_err("unload", "could not remove everything under %s", OLD_DIR);
	printf("unloaded: %d pins removed\n", n);
	return 0;
}
