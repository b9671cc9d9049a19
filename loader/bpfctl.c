// SPDX-License-Identifier: GPL-2.0
/*
 * load, unload, status, mode, set, decisions, policy: the BPF side of
 * fcapsctl. Everything lives pinned under FCAPS_PIN_DIR (maps by name,
 * programs under progs/, links under links/), so it outlives the loader;
 * a load that fails anywhere removes all it created.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
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
#include "policy.h"
#include "fcaps.skel.h"

#define PROGS_DIR FCAPS_PIN_DIR "/progs"
#define LINKS_DIR FCAPS_PIN_DIR "/links"

static const char *hook_names[FCAPS_NHOOKS] = {
	"exec", "kill", "setscheduler", "setnice", "setioprio", "xattr",
};

static int fail(const char *cmd, const char *fmt, const char *arg)
{
	fprintf(stderr, "fcapsctl %s: ", cmd);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	return 1;
}

static int map_fd(const char *name)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), FCAPS_PIN_DIR "/%s", name);
	fd = bpf_obj_get(path);
	if (fd < 0)
		fprintf(stderr, "fcapsctl: opening %s: %s%s\n", path, strerror(errno),
			errno == ENOENT ? " (not loaded? try 'fcapsctl load')" : "");
	return fd;
}

/* Remove every pin under FCAPS_PIN_DIR; returns how many were removed. */
static int unpin_all(void)
{
	static const char *dirs[] = { LINKS_DIR, PROGS_DIR, FCAPS_PIN_DIR };
	int removed = 0;

	for (size_t i = 0; i < 3; i++) {
		DIR *d = opendir(dirs[i]);
		struct dirent *e;
		char path[512];

		if (!d)
			continue;
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", dirs[i], e->d_name);
			if (!unlink(path))
				removed++;
		}
		closedir(d);
	}
	rmdir(LINKS_DIR);
	rmdir(PROGS_DIR);
	rmdir(FCAPS_PIN_DIR);
	return removed;
}

static int kernel_has_fcaps_tracepoints(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	int found;

	if (!btf)
		return 0;
	found = btf__find_by_name_kind(btf, "btf_trace_fcaps_exec", BTF_KIND_TYPEDEF) >= 0;
	btf__free(btf);
	return found;
}

static int put_policy(int fd, const struct policy *p)
{
	for (size_t i = 0; i < p->n; i++) {
		if (bpf_map_update_elem(fd, &p->v[i].key, &p->v[i].value, BPF_ANY)) {
			fprintf(stderr, "fcapsctl: policy map: adding %s: %s\n",
				p->v[i].path, strerror(errno));
			return -1;
		}
	}
	return 0;
}

static int parse_mode(const char *s, __u32 *mode)
{
	if (!strcmp(s, "enforce"))
		*mode = FCAPS_MODE_ENFORCE;
	else if (!strcmp(s, "shadow"))
		*mode = FCAPS_MODE_SHADOW;
	else
		return -1;
	return 0;
}

int cmd_load(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "policy", required_argument, NULL, 'p' },
		{ "scan", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	LIBBPF_OPTS(bpf_object_open_opts, open_opts, .pin_root_path = FCAPS_PIN_DIR);
	struct fcaps_config cfg = { FCAPS_MODE_SHADOW, 1, 1, 0 };
	struct fcaps_bpf *skel = NULL;
	struct policy pol = {};
	struct bpf_program *prog;
	int c, bad = 0, tracepoints, attached = 0;
	__u32 zero = 0;
	char path[256];

	while ((c = getopt_long(argc, argv, "m:p:s:h", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (parse_mode(optarg, &cfg.mode))
				return fail("load", "--mode is enforce or shadow, not '%s'", optarg);
			break;
		case 'p':
			bad |= policy_parse_file(optarg, &pol);
			break;
		case 's':
			bad |= policy_scan_dir(optarg, &pol);
			break;
		case 'h':
			printf("usage: fcapsctl load [--mode enforce|shadow] [--policy FILE]... [--scan DIR]...\n"
			       "Load and attach the fcaps BPF programs, pinned under %s.\n"
			       "The policy comes from the files and the scanned trees; a bad line\n"
			       "loads nothing. The default mode is shadow (record, allow).\n",
			       FCAPS_PIN_DIR);
			return 0;
		default:
			return 2;
		}
	}
	if (bad) {
		policy_free(&pol);
		return fail("load", "%s", "bad policy: nothing loaded");
	}
	if (!access(LINKS_DIR, F_OK)) {
		policy_free(&pol);
		return fail("load", "already loaded under %s ('fcapsctl unload' first)", FCAPS_PIN_DIR);
	}
	unpin_all();	/* leftovers of a crashed load, if any */
	if (mkdir(FCAPS_PIN_DIR, 0700) || mkdir(PROGS_DIR, 0700) || mkdir(LINKS_DIR, 0700)) {
		fail("load", "creating the pin directories: %s", strerror(errno));
		goto err;
	}

	skel = fcaps_bpf__open_opts(&open_opts);
	if (!skel) {
		fail("load", "opening the BPF object: %s", strerror(errno));
		goto err;
	}
	tracepoints = kernel_has_fcaps_tracepoints();
	bpf_program__set_autoload(skel->progs.fcaps_kernel_exec, tracepoints);
	bpf_program__set_autoload(skel->progs.fcaps_kernel_kill, tracepoints);
	if (fcaps_bpf__load(skel)) {
		fail("load", "loading the BPF programs: %s (see the libbpf log above)", strerror(errno));
		goto err;
	}
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.config), &zero, &cfg, BPF_ANY) ||
	    put_policy(bpf_map__fd(skel->maps.policy), &pol)) {
		fail("load", "filling the maps: %s", strerror(errno));
		goto err;
	}
	bpf_object__for_each_program(prog, skel->obj) {
		struct bpf_link *link;

		if (!bpf_program__autoload(prog))
			continue;
		snprintf(path, sizeof(path), PROGS_DIR "/%s", bpf_program__name(prog));
		if (bpf_program__pin(prog, path)) {
			fail("load", "pinning %s", path);
			goto err;
		}
		link = bpf_program__attach(prog);
		if (!link) {
			fail("load", "attaching %s", bpf_program__name(prog));
			goto err;
		}
		snprintf(path, sizeof(path), LINKS_DIR "/%s", bpf_program__name(prog));
		if (bpf_link__pin(link, path)) {
			bpf_link__destroy(link);
			fail("load", "pinning %s", path);
			goto err;
		}
		bpf_link__disconnect(link);	/* the pin holds it now */
		bpf_link__destroy(link);
		attached++;
	}
	printf("loaded: %d programs attached (%s), mode %s, %zu policy entries%s\n",
	       attached, LINKS_DIR, cfg.mode ? "enforce" : "shadow", pol.n,
	       tracepoints ? ", kernel decisions from fcaps tracepoints" : "");
	fcaps_bpf__destroy(skel);
	policy_free(&pol);
	return 0;
err:
	unpin_all();
	fcaps_bpf__destroy(skel);
	policy_free(&pol);
	fprintf(stderr, "fcapsctl load: nothing left loaded\n");
	return 1;
}

int cmd_unload(int argc, char **argv)
{
	int n;

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: fcapsctl unload\nDetach the fcaps BPF programs and remove %s.\n",
		       FCAPS_PIN_DIR);
		return 0;
	}
	n = unpin_all();
	if (!access(FCAPS_PIN_DIR, F_OK))
		return fail("unload", "could not remove everything under %s", FCAPS_PIN_DIR);
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
	__u32 zero = 0;
	int rc;

	if (fd < 0)
		return -1;
	rc = bpf_map_update_elem(fd, &zero, cfg, BPF_ANY);
	close(fd);
	return rc;
}

static long count_entries(const char *map, size_t keysz)
{
	char key[64], next[64];
	int fd = map_fd(map);
	long n = 0;

	if (fd < 0)
		return -1;
	if (!bpf_map_get_next_key(fd, NULL, next))
		do {
			n++;
			memcpy(key, next, keysz);
		} while (!bpf_map_get_next_key(fd, key, next));
	close(fd);
	return n;
}

int cmd_status(int argc, char **argv)
{
	int json = argc > 1 && !strcmp(argv[1], "--json");
	struct fcaps_config cfg;
	struct fcaps_counters ctr[FCAPS_NHOOKS] = {};
	int fd, nlinks = 0;
	struct dirent *e;
	DIR *d;

	if (argc > 1 && !json) {
		printf("usage: fcapsctl status [--json]\nMode, switches, attached programs, "
		       "map fill and per-hook counters.\n");
		return strcmp(argv[1], "--help") && strcmp(argv[1], "-h") ? 2 : 0;
	}
	if (read_config(&cfg))
		return 1;
	fd = map_fd("counters");
	for (__u32 h = 0; fd >= 0 && h < FCAPS_NHOOKS; h++)
		bpf_map_lookup_elem(fd, &h, &ctr[h]);
	if (fd >= 0)
		close(fd);
	printf(json ? "{\"mode\":\"%s\",\"exec\":%u,\"kill\":%u,\"nosuid_ignore\":%u,\"programs\":["
		    : "mode: %s\nswitches: exec=%u kill=%u nosuid_ignore=%u\nprograms:",
	       cfg.mode ? "enforce" : "shadow", cfg.exec, cfg.kill, cfg.nosuid_ignore);
	d = opendir(LINKS_DIR);
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			printf(json ? "%s\"%s\"" : "%s%s", nlinks++ && json ? "," : " ", e->d_name);
	if (d)
		closedir(d);
	printf(json ? "],\"policy\":%ld,\"decisions\":%ld,\"kdecisions\":%ld,\"counters\":{"
		    : "\nmaps: policy=%ld decisions=%ld kdecisions=%ld\ncounters:\n",
	       count_entries("policy", sizeof(struct fcaps_file_key)),
	       count_entries("decisions", 8), count_entries("kdecisions", 8));
	for (int h = 0; h < FCAPS_NHOOKS; h++)
		printf(json ? "%s\"%s\":{\"seen\":%llu,\"allowed\":%llu,\"denied\":%llu,\"errors\":%llu}"
			    : "%s  %-12s seen=%llu allowed=%llu denied=%llu errors=%llu\n",
		       json && h ? "," : "", hook_names[h],
		       (unsigned long long)ctr[h].seen, (unsigned long long)ctr[h].allowed,
		       (unsigned long long)ctr[h].denied, (unsigned long long)ctr[h].errors);
	if (json)
		printf("}}\n");
	return 0;
}

int cmd_mode(int argc, char **argv)
{
	struct fcaps_config cfg;

	if (argc != 2 || (strcmp(argv[1], "enforce") && strcmp(argv[1], "shadow"))) {
		printf("usage: fcapsctl mode enforce|shadow\n");
		return argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) ? 0 : 2;
	}
	if (read_config(&cfg))
		return 1;
	parse_mode(argv[1], &cfg.mode);
	return write_config(&cfg) ? fail("mode", "updating config: %s", strerror(errno)) : 0;
}

int cmd_set(int argc, char **argv)
{
	struct fcaps_config cfg;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		printf("usage: fcapsctl set [exec=0|1] [kill=0|1] [nosuid_ignore=0|1]...\n"
		       "The BPF side's switches (SEMANTICS section 5).\n");
		return argc < 2 ? 2 : 0;
	}
	if (read_config(&cfg))
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
			return fail("set", "'%s' is not exec=0|1, kill=0|1 or nosuid_ignore=0|1", argv[i]);
		*sw = eq[1] == '1';
	}
	return write_config(&cfg) ? fail("set", "updating config: %s", strerror(errno)) : 0;
}

static void print_decision(const char *map, const struct fcaps_decision *d, int json)
{
	if (json) {
		printf("{\"map\":\"%s\",\"seq\":%llu,\"hook\":\"%s\",\"pid\":%u,\"target\":%u,"
		       "\"sig\":%d,\"ret\":%d,\"form\":%u,\"legacy\":%u,\"nosuid\":%u,\"dev\":%u,"
		       "\"ino\":%llu,\"tag\":%u,\"uid\":%u,\"euid\":%u,\"secureexec\":%u,"
		       "\"fe\":%llu,\"fp\":%llu,\"fi\":%llu,\"pe\":%llu,\"pp\":%llu,\"pi\":%llu,"
		       "\"pa\":%llu,\"target_pp\":%llu}\n",
		       map, (unsigned long long)d->seq, d->hook < FCAPS_NHOOKS ? hook_names[d->hook] : "?",
		       d->pid, d->target, d->sig, d->ret, d->form, d->legacy, d->nosuid, d->dev,
		       (unsigned long long)d->ino, d->tag, d->uid, d->euid, d->secureexec,
		       (unsigned long long)d->fe, (unsigned long long)d->fp,
		       (unsigned long long)d->fi, (unsigned long long)d->pe,
		       (unsigned long long)d->pp, (unsigned long long)d->pi,
		       (unsigned long long)d->pa, (unsigned long long)d->target_pp);
		return;
	}
	printf("%-10s seq=%llu %s pid=%u ret=%d", map, (unsigned long long)d->seq,
	       d->hook < FCAPS_NHOOKS ? hook_names[d->hook] : "?", d->pid, d->ret);
	if (d->hook == FCAPS_HOOK_EXEC)
		printf(" dev=%u:%u ino=%llu tag=%#x legacy=%u uid=%u euid=%u pE=%#llx pP=%#llx "
		       "pI=%#llx pA=%#llx secure=%u\n", kdev_major(d->dev), kdev_minor(d->dev),
		       (unsigned long long)d->ino, d->tag, d->legacy, d->uid, d->euid,
		       (unsigned long long)d->pe, (unsigned long long)d->pp,
		       (unsigned long long)d->pi, (unsigned long long)d->pa, d->secureexec);
	else
		printf(" target=%u sig=%d pP=%#llx target_pP=%#llx\n", d->target, d->sig,
		       (unsigned long long)d->pp, (unsigned long long)d->target_pp);
}

int cmd_decisions(int argc, char **argv)
{
	static const char *maps[] = { "decisions", "kdecisions" };
	int json = 0, clear = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = 1;
		else if (!strcmp(argv[i], "--clear"))
			clear = 1;
		else {
			printf("usage: fcapsctl decisions [--json] [--clear]\n"
			       "Print the BPF decisions and the kernel's (kdecisions); --clear\n"
			       "empties both afterwards.\n");
			return strcmp(argv[i], "--help") && strcmp(argv[i], "-h") ? 2 : 0;
		}
	}
	for (int m = 0; m < 2; m++) {
		struct fcaps_decision d;
		__u64 key, next;
		int fd = map_fd(maps[m]), more;

		if (fd < 0)
			return 1;
		for (more = !bpf_map_get_next_key(fd, NULL, &next); more;) {
			key = next;
			more = !bpf_map_get_next_key(fd, &key, &next);
			if (!bpf_map_lookup_elem(fd, &key, &d))
				print_decision(maps[m], &d, json);
			if (clear)
				bpf_map_delete_elem(fd, &key);
		}
		close(fd);
	}
	return 0;
}

static int policy_usage(int rc)
{
	printf("usage: fcapsctl policy import [--replace] FILE\n"
	       "       fcapsctl policy scan DIR...\n"
	       "       fcapsctl policy add PATH [v1|v3] CAPTEXT | PATH hex:BYTES\n"
	       "       fcapsctl policy del PATH\n"
	       "       fcapsctl policy list [--json]\n"
	       "A policy file has one 'PATH CAPTEXT' per line ('#' comments); a bad\n"
	       "line is reported as FILE:LINE and nothing of the file is loaded.\n");
	return rc;
}

static int policy_list(int json)
{
	struct fcaps_file_key key, next;
	struct fcaps_policy_value v;
	int fd = map_fd("policy"), more;

	if (fd < 0)
		return 1;
	for (more = !bpf_map_get_next_key(fd, NULL, &next); more;) {
		struct fcaps_sets sets;
		enum fcaps_form form;
		char *text = NULL;

		key = next;
		more = !bpf_map_get_next_key(fd, &key, &next);
		if (bpf_map_lookup_elem(fd, &key, &v))
			continue;
		form = fcaps_decode(v.value, v.len, &sets);
		if (form == FCAPS_WELL_FORMED)
			text = fcaps_sets_to_text(&sets);
		printf(json ? "{\"dev\":\"%u:%u\",\"ino\":%llu,\"size\":%u,\"form\":\"%s\",\"text\":\"%s\"}\n"
			    : "dev=%u:%u ino=%llu size=%u %s %s\n",
		       kdev_major(key.dev), kdev_minor(key.dev), (unsigned long long)key.ino, v.len,
		       form == FCAPS_WELL_FORMED ? (fcaps_le32(v.value) == FCAPS_V1_TAG ? "v1" : "v3")
						 : "malformed", text ? text : "");
		free(text);
	}
	close(fd);
	return 0;
}

int cmd_policy(int argc, char **argv)
{
	struct policy pol = {};
	char err[512];
	int fd, rc = 0;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return policy_usage(argc < 2 ? 2 : 0);
	if (!strcmp(argv[1], "list"))
		return policy_list(argc > 2 && !strcmp(argv[2], "--json"));
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
			return fail("policy del", "%s", strerror(-rc));
		fd = map_fd("policy");
		if (fd < 0)
			return 1;
		rc = bpf_map_delete_elem(fd, &key) ? errno : 0;
		close(fd);
		if (rc == ENOENT)
			return fail("policy del", "%s has no policy entry", argv[2]);
		return rc ? fail("policy del", "updating the policy map: %s", strerror(rc)) : 0;
	} else {
		return policy_usage(2);
	}
	if (rc) {
		policy_free(&pol);
		return fail("policy", "%s", "nothing changed");
	}
	fd = map_fd("policy");
	if (fd < 0) {
		policy_free(&pol);
		return 1;
	}
	if (argc == 4 && !strcmp(argv[2], "--replace")) {
		struct fcaps_file_key key;

		while (!bpf_map_get_next_key(fd, NULL, &key))
			bpf_map_delete_elem(fd, &key);
	}
	rc = put_policy(fd, &pol) ? 1 : 0;
	if (!rc)
		printf("policy: %zu entries written\n", pol.n);
	close(fd);
	policy_free(&pol);
	return rc;
}
