// SPDX-License-Identifier: GPL-2.0
/* status: what is loaded, how it is set, what it has decided. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "main.h"
#include "pins.h"
#include "ring.h"

static const char status_usage[] =
	"usage: fcapsctl status [--json]\n"
	"\n"
	"Mode, switches, attached programs, map fill and per-hook counters;\n"
	"--json also the verifier's steps over each program (verified_insns, of\n"
	"1,000,000) and the runs of each the kernel skipped (recursion_misses).\n";

static const char *const hook_names[FCAPS_NHOOKS] = {
#define HOOK_NAME(up, low, what) #low,
	FCAPS_HOOKS(HOOK_NAME)
#undef HOOK_NAME
};

static const char *const record_names[] = { "all", "denied", "none" };

/* A hash map's entries, or a decision ring's occupied slots (keysz 0) */
static long count_entries(const char *map, size_t keysz)
{
	char key[64], next[64];
	/* a ring is read through a shared mapping: a writable descriptor */
	int fd = map_fd(map, keysz != 0);
	struct ring r;
	long n = 0;

	if (fd < 0)
		return -1;
	if (!keysz) {
		n = ring_open_fd(fd, &r, 0) ? -1 : ring_count(&r);
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

/*
 * Of each pinned program: how many steps the verifier took (of its
 * 1,000,000) into @steps, and how many runs the kernel skipped into
 * @misses: a tracing program (fentry, fexit, fmod_ret) does not run where
 * it is already running on the CPU (preempted, or an interrupt entering
 * the same hook), and a skipped fmod_ret lets its hook through. -1 where
 * the kernel would not say. The sum of the misses is returned.
 */
static unsigned long long prog_stats(json_object *steps, json_object *misses)
{
	char path[sizeof(PROGS_DIR) + 256];
	unsigned long long missed = 0;
	struct dirent *e;
	DIR *d = opendir(PROGS_DIR);

	while (d && (e = readdir(d))) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		long long n = -1, m = -1;
		int fd;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", PROGS_DIR, e->d_name);
		fd = bpf_obj_get(path);
		if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len)) {
			n = info.verified_insns;
			m = info.recursion_misses;
			missed += info.recursion_misses;
		}
		if (fd >= 0)
			close(fd);
		json_object_object_add(steps, e->d_name, json_object_new_int64(n));
		json_object_object_add(misses, e->d_name, json_object_new_int64(m));
	}
	if (d)
		closedir(d);
	return missed;
}

static json_object *status_json(const struct fcaps_config *cfg,
				 const struct fcaps_counters *ctr, int lsm)
{
	static const char *const maps[] = { "policy", "policy61", "decisions", "kdecisions",
					    "ceilings", "ns_marks" };
	static const size_t keysz[] = { sizeof(struct fcaps_file_key),
					sizeof(struct fcaps_file_key), 0, 0, 8, 8 };
	json_object *o = json_object_new_object(), *progs, *fill, *counters;
	json_object *steps = json_object_new_object(), *misses = json_object_new_object();
	unsigned long long missed;
	struct dirent *e;
	DIR *d;

	json_object_object_add(o, "mode", jstr(cfg->mode ? "enforce" : "shadow"));
	json_object_object_add(o, "exec", ju64(cfg->exec));
	json_object_object_add(o, "kill", ju64(cfg->kill));
	json_object_object_add(o, "nosuid_ignore", ju64(cfg->nosuid_ignore));
	json_object_object_add(o, "armed", ju64(cfg->armed));
	json_object_object_add(o, "record",
			       jstr(cfg->record < 3 ? record_names[cfg->record] : "?"));
	json_object_object_add(o, "kernel_records", ju64(cfg->kernel_records));
	json_object_object_add(o, "ceilings_live", ju64(cfg->ceilings_live));
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
	missed = prog_stats(steps, misses);
	/* --json carries the counts; the text says what they mean */
	if (missed && !json_output)
		fprintf(stderr, "fcapsctl status: ALARM: the kernel skipped %llu runs of fcaps' "
			"tracing programs: a skipped fmod_ret or fexit decided nothing, a skipped "
			"fentry left its entry behind (--json: recursion_misses)\n", missed);
	json_object_object_add(o, "verified_insns", steps);
	json_object_object_add(o, "recursion_misses", misses);
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
	return o;
}

int do_status(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct fcaps_counters ctr[FCAPS_NHOOKS] = {};
	struct fcaps_config cfg;
	json_object *o;
	int c, fd, lsm, done;

	while ((c = next_opt(argc, argv, "jh", opts, "status", status_usage, &done)) != -1)
		return done;
	if (optind < argc)
		return p_usage("status", status_usage, "unknown argument '%s'", argv[optind]);
	if (read_config(&cfg))
		return 1;
	fd = map_fd("counters", 1);
	for (__u32 h = 0; fd >= 0 && h < FCAPS_NHOOKS; h++)
		read_counters(fd, h, &ctr[h]);
	if (fd >= 0)
		close(fd);
	lsm = bpf_lsm_active();
	if (ctr[FCAPS_HOOK_XATTR].errors)
		fprintf(stderr, "fcapsctl status: ALARM: %llu security.capability writes are not "
			"in the policy map (full?)\n", (unsigned long long)ctr[FCAPS_HOOK_XATTR].errors);
	o = status_json(&cfg, ctr, lsm);
	if (json_output) {
		json_print(o);
		return 0;
	}
	printf("mode: %s\nswitches: exec=%u kill=%u nosuid_ignore=%u\narmed: %u\n"
	       "ceilings live: %u\nrecord: %s%s\nbpf LSM: %s\nprograms: %s\nmaps: %s\n",
	       cfg.mode ? "enforce" : "shadow", cfg.exec, cfg.kill, cfg.nosuid_ignore,
	       cfg.armed, cfg.ceilings_live, cfg.record < 3 ? record_names[cfg.record] : "?",
	       cfg.kernel_records ? ", and the kernel's own decisions (kdecisions)" : "",
	       lsm == 1 ? "active" : "NOT ACTIVE: exec decisions and the xattr guard do not run",
	       json_object_to_json_string_ext(json_object_object_get(o, "programs"),
					      JSON_C_TO_STRING_PLAIN),
	       json_object_to_json_string_ext(json_object_object_get(o, "maps"),
					      JSON_C_TO_STRING_PLAIN));
	printf("counters:\n");
	for (int h = 0; h < FCAPS_NHOOKS; h++)
		printf("  %-12s seen=%llu allowed=%llu denied=%llu errors=%llu\n", hook_names[h],
		       (unsigned long long)ctr[h].seen, (unsigned long long)ctr[h].allowed,
		       (unsigned long long)ctr[h].denied, (unsigned long long)ctr[h].errors);
	json_object_put(o);
	return 0;
}
