// SPDX-License-Identifier: GPL-2.0
/* policy: the BPF policy maps, edited while the programs run. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "capfile.h"
#include "filekey.h"
#include "main.h"
#include "pins.h"
#include "policymap.h"
#include "scan.h"

static const char policy_usage[] =
	"usage: fcapsctl policy import [--replace] FILE\n"
	"       fcapsctl policy scan DIR...\n"
	"       fcapsctl policy add PATH [v1|v3] CAPTEXT | PATH hex:BYTES\n"
	"       fcapsctl policy del PATH\n"
	"       fcapsctl policy list [--json]\n"
	"\n"
	"A policy file has one 'PATH CAPTEXT' per line ('#' comments); a bad\n"
	"line is reported as FILE:LINE and nothing of the file is loaded. An\n"
	"empty CAPTEXT is an error ('=' names the empty sets on purpose). A PATH\n"
	"is never resolved through a symbolic link: name the file itself.\n"
	"import --replace makes the file the whole policy, atomically.\n"
	"scan adds every file under DIR whose value is legacy-tagged, mounts\n"
	"below it included.\n";

static const struct option help_only[] = {
	{ "help", no_argument, NULL, 'h' },
	{ 0 }
};

static void list_map(int fd, const struct fcaps_config *cfg)
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
		if (json_output) {
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

static int do_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct policy_maps pm;
	struct fcaps_config cfg;
	int c, done;

	while ((c = next_opt(argc, argv, "jh", opts, "policy list", policy_usage, &done)) != -1)
		return done;
	if (optind < argc)
		return p_usage("policy", policy_usage, "bad arguments to 'policy list'");
	if (policy_maps_open(&pm, 1))
		return 1;
	if (read_config(&cfg)) {
		policy_maps_close(&pm);
		return 1;
	}
	list_map(pm.fd[0], &cfg);
	list_map(pm.fd[1], &cfg);
	policy_maps_close(&pm);
	return 0;
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
		return p_err("policy import", "updating the config: %s", strerror(errno));
	fault_point("replace-next-gen");
	if (put_policy(pm, pol, next, BPF_ANY))
		return 1;
	fault_point("replace-written");
	if (read_config(&cfg))
		return 1;
	cfg.policy_gen = next;
	if (write_config(&cfg))
		return p_err("policy import", "switching to the new policy: %s", strerror(errno));
	fault_point("replace-switched");
	drop_other_gens(pm, next);
	return 0;
}

/* Write @pol into the pinned maps: replacing the policy, or over what is
 * there */
enum put_how { PUT_OVER, PUT_REPLACE };

static int put_pinned(struct policy *pol, enum put_how how)
{
	struct fcaps_config cfg;
	struct policy_maps pm;
	int rc;

	if (lock_state("policy") < 0 || read_config(&cfg) || policy_maps_open(&pm, 0)) {
		policy_free(pol);
		return 1;
	}
	if (how == PUT_REPLACE)
		rc = replace_policy(&pm, pol);
	else
		rc = put_policy(&pm, pol, cfg.policy_gen, BPF_ANY) ? 1 : 0;
	if (!rc)
		printf("policy: %zu entries written\n", pol->n);
	policy_maps_close(&pm);
	policy_free(pol);
	return rc;
}

static int do_import(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "replace", no_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct policy pol = {};
	int c, done, replace = 0;

	while ((c = next_opt(argc, argv, "rh", opts, "policy import", policy_usage,
			     &done)) != -1) {
		if (c != 'r')
			return done;
		replace = 1;
	}
	if (argc - optind != 1)
		return p_usage("policy", policy_usage, "bad arguments to 'policy import'");
	if (policy_parse_file(argv[optind], &pol)) {
		policy_free(&pol);
		return p_err("policy", "nothing changed");
	}
	return put_pinned(&pol, replace ? PUT_REPLACE : PUT_OVER);
}

/* Scan @dirs into the pinned maps: a value removed meanwhile leaves a
 * tombstone in scan_removed, so that the scan does not put it back */
static int scan_pinned(char **dirs, int n)
{
	struct fcaps_config cfg;
	struct policy_maps pm;
	struct policy pol = {};
	int rc = 1, i;

	if (lock_state("policy") < 0 || read_config(&cfg) || policy_maps_open(&pm, 0))
		return 1;
	pm.removed = map_fd("scan_removed", 0);
	if (pm.removed < 0)
		goto out;
	clear_map(pm.removed);
	cfg.scanning = 1;
	if (write_config(&cfg)) {
		p_err("policy scan", "updating the config: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i < n && !policy_scan_dir(dirs[i], &pol); i++)
		;
	fault_point("scanned");
	if (i < n)
		p_err("policy", "nothing changed");
	else if (!put_policy(&pm, &pol, cfg.policy_gen, BPF_NOEXIST))
		rc = 0;
	if (!rc)
		printf("policy: %zu entries written\n", pol.n);
	if (!read_config(&cfg)) {
		cfg.scanning = 0;
		write_config(&cfg);
	}
out:
	if (pm.removed >= 0)
		close(pm.removed);
	policy_maps_close(&pm);
	policy_free(&pol);
	return rc;
}

static int do_scan(int argc, char **argv)
{
	int c, done;

	while ((c = next_opt(argc, argv, "h", help_only, "policy scan", policy_usage,
			     &done)) != -1)
		return done;
	if (optind == argc)
		return p_usage("policy", policy_usage, "bad arguments to 'policy scan'");
	return scan_pinned(argv + optind, argc - optind);
}

static int do_add(int argc, char **argv)
{
	struct policy pol = {};
	char err[512];
	int c, done;

	while ((c = next_opt(argc, argv, "h", help_only, "policy add", policy_usage,
			     &done)) != -1)
		return done;
	if (argc - optind != 2)
		return p_usage("policy", policy_usage, "bad arguments to 'policy add'");
	if (policy_add_text(&pol, argv[optind], argv[optind + 1], err, sizeof(err))) {
		policy_free(&pol);
		fprintf(stderr, "fcapsctl policy add: %s\n", err);
		return p_err("policy", "nothing changed");
	}
	return put_pinned(&pol, PUT_OVER);
}

static int do_del(int argc, char **argv)
{
	struct fcaps_config cfg;
	struct fcaps_file_key key;
	struct policy_maps pm;
	int c, done, rc;

	while ((c = next_opt(argc, argv, "h", help_only, "policy del", policy_usage,
			     &done)) != -1)
		return done;
	if (argc - optind != 1)
		return p_usage("policy", policy_usage, "bad arguments to 'policy del'");
	rc = policy_key(argv[optind], &key);
	if (rc)
		return p_err("policy del", "%s: %s", argv[optind], policy_key_error(rc));
	if (lock_state("policy") < 0 || read_config(&cfg) || policy_maps_open(&pm, 0))
		return 1;
	key.gen = cfg.policy_gen;
	/* in one map or the other */
	rc = bpf_map_delete_elem(pm.fd[0], &key) ? errno : 0;
	if (rc == ENOENT)
		rc = bpf_map_delete_elem(pm.fd[1], &key) ? errno : 0;
	policy_maps_close(&pm);
	if (rc == ENOENT)
		return p_err("policy del", "%s has no policy entry", argv[optind]);
	return rc ? p_err("policy del", "updating the policy map: %s", strerror(rc)) : 0;
}

static const struct cmd policy_cmds[] = {
	{ "import", do_import },
	{ "scan", do_scan },
	{ "add", do_add },
	{ "del", do_del },
	{ "list", do_list },
	{ 0 }
};

int do_policy(int argc, char **argv)
{
	return cmd_select("policy", policy_usage, policy_cmds, argc - 1, argv + 1);
}
