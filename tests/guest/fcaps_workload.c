// SPDX-License-Identifier: GPL-2.0
/*
 * fcaps_workload: the differential's workload. Runs the catalogue's events
 * (catalogue.h) and/or M seeded random ones, each with a stable name, and
 * prints one JSON line per event with its choices and what the workload
 * itself saw: exec errno and credentials, signal and scheduling results,
 * and the pids whose records in the decision maps belong to the event.
 *
 *   fcaps_workload --path kernel|bpf|both [--seed N] [--events M]
 *                  [--no-catalogue] [--only NAME|@FILE] [--list] [--hang NAME]
 *   fcaps_workload --parse < NAMES
 *
 * --path says whose switches a row's switch settings go to: the kernel's
 * sysctls, the BPF config map, or both (shadow runs). With bpf, the actors
 * of signal and scheduling events whose capabilities the kernel would have
 * given by exec get the same live sets another way (catalogue.h, cast()),
 * so that both runs compare processes with equal credentials.
 *
 * Random event N depends only on (seed, N): --only "random#N: ..." (or
 * "random#N" alone) with the run's seed recreates it alone. --only NAME
 * runs exactly the one event named NAME (catalogue or random) and fails
 * with status 2 if none is; --only @FILE runs the events FILE names, one a
 * line. "reduced#K: TEXT" (or "reduced: TEXT") is a random event's text
 * run as written, whatever the seed (event_spec.h): what tests/diff/reduce
 * makes, which --parse checks, printing each name it can run or why not.
 * --list prints every event's name (and, for random ones, what it is
 * meant to exercise) without running anything. Each event runs in a
 * process of its own within a time limit (event_guard.h); --hang NAME
 * makes the event NAME hang, to test that a hang is reported on its event.
 * --drain-every N with --drain MAP:DUMP:PIDS empties the decision rings
 * after every N random events (ring_drain.h), CTL (--drain-ctl, fcapsctl
 * by default) reading them: a run longer than a ring holds.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <sys/wait.h>
#include <time.h>
#include "battery.h"
#include "catalogue.h"
#include "event_guard.h"
#include "event_spec.h"
#include "ring_drain.h"

static enum { TO_KERNEL = 1, TO_BPF = 2 } switch_to = TO_KERNEL;
/* --only NAME or --only @FILE (a name a line): the events to run */
static const char *onlys[4096];
static char only_hit[4096];
static int n_only;
static const char *hang;		/* --hang NAME */
static long drain_every;		/* --drain-every N */
static const char *drain_ctl = "fcapsctl";
static enum { RUN, LIST, COUNT, PARSE } mode;	/* COUNT: find --only's events first */

static void apply(struct switches s)
{
	if (switch_to & TO_KERNEL) {
		reset_switches();
		if ((s.exec_off && set_switch("exec", 0)) ||
		    (s.kill_off && set_switch("kill", 0)) ||
		    (s.nosuid_ignore && set_switch("nosuid_ignore", 1))) {
			fprintf(stderr, "workload: cannot set the kernel.fcaps switches\n");
			exit(1);
		}
	}
	if ((switch_to & TO_BPF) && bpf_switches(!s.exec_off, !s.kill_off, s.nosuid_ignore)) {
		fprintf(stderr, "workload: cannot set the BPF switches (loaded?)\n");
		exit(1);
	}
}

/* BPF cannot grant: the swap run's BPF half plays capped actors by ambient */
static int bpf_actors(void)
{
	return switch_to == TO_BPF;
}

/*
 * Whether the event named @name runs (--only, --list): in a process of its
 * own (event_guard.h), whose caller ends it with guard_end(). @focus, for
 * random events, says what the event is meant to exercise.
 */
static int only_names(const char *name)
{
	int hit = 0;

	for (int i = 0; i < n_only; i++) {
		size_t n = strlen(onlys[i]);

		/* "random#N" alone names random event N, whatever its choices spell */
		if (!strncmp(onlys[i], "random#", 7) && !strchr(onlys[i], ':') ?
		    !strncmp(name, onlys[i], n) && name[n] == ':' : !strcmp(onlys[i], name))
			hit = only_hit[i] = 1;
	}
	return hit;
}

static int selected(const char *name, const char *focus, const char *kind)
{
	if (n_only && !only_names(name))
		return 0;
	if (mode == LIST)
		printf("%s%s%s\n", name, focus ? "\t" : "", focus ? focus : "");
	if (mode != RUN || !guard_begin(name, kind))
		return 0;
	/* the harness's own test of a hang (tests/diff/run --hang NAME) */
	if (hang && !strcmp(hang, name)) {
		kill(getpid(), 0);	/* the event's marker, as event_begin() */
		for (;;)
			pause();
	}
	return 1;
}

/*
 * Each event starts with a signal 0 to ourselves: both decision maps record
 * it, so the records between two such markers belong to one event whatever
 * pids the (small) guest kernel reuses.
 */
static void event_begin(void)
{
	kill(getpid(), 0);
}

static void json_str(const char *k, const char *v)
{
	printf(",\"%s\":\"", k);
	for (; *v; v++)
		printf(*v == '"' || *v == '\\' ? "\\%c" : "%c", *v);
	printf("\"");
}

static void json_num(const char *k, unsigned long long v)
{
	printf(",\"%s\":%llu", k, v);
}

/* "workload": the event's own process (its markers), "runner": the
 * workload's, which sets up before the first event and cleans up after
 * the last (event_guard.h) */
static void json_begin(const char *name, const char *kind)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	printf("{\"workload\":%d,\"runner\":%d", getpid(), getppid());
	json_str("name", name);
	json_str("kind", kind);
	/* when its work ended: from one event's to the next is what the next
	 * cost, its fork and setup included (tests/diff/profile.py) */
	json_num("t_us", t.tv_sec * 1000000ULL + t.tv_nsec / 1000);
}

/* The probe's key=value words as JSON numbers, as "prefix" + key; pairs
 * of probe key and JSON key where they differ ("securebits" is the one
 * after the exec). */
static void json_fields(const char *line, const char *prefix, const char *const *keys)
{
	for (; *keys; keys++) {
		const char *out = *keys;

		if (!strcmp(*keys, "securebits") && !*prefix)
			out = "securebits_after";
		if (has_field(line, *keys))
			printf(",\"%s%s\":%lld", prefix, out, (long long)field(line, *keys));
	}
}

static void json_file(const char *prefix, const char *path)
{
	struct file_info fi;
	char k[32];

	file_info(path, &fi);
	snprintf(k, sizeof(k), "%s", prefix);
	json_str(k, path);
	snprintf(k, sizeof(k), "%s_tag", prefix);
	json_num(k, fi.tag);
	snprintf(k, sizeof(k), "%s_form", prefix);
	json_str(k, fi.form);
	snprintf(k, sizeof(k), "%s_nosuid_mount", prefix);
	json_num(k, fi.nosuid);
}

/*
 * The capability battery's fixtures (battery.h), for the runs that enforce
 * (--path kernel or bpf): what each exec'd process can do is compared
 * between them. Its two processes lead sessions of their own, out of
 * reach of the events' group signals.
 */
static pid_t battery_victim, battery_root;
static char victim_arg[16], root_arg[16];

static pid_t battery_sleeper(uid_t uid)
{
	pid_t pid = fork();

	if (pid == 0) {
		setsid();
		if (uid && (setresgid(uid, uid, uid) || setresuid(uid, uid, uid)))
			_exit(1);
		for (;;)
			pause();
	}
	return pid;
}

static void battery_setup(void)
{
	int fd;

	mkdir(BATTERY_DIR, 0755);
	mkdir(BATTERY_RW, 0);
	fd = open(BATTERY_LOCKED, O_CREAT | O_WRONLY, 0);
	if (fd < 0 || fchown(fd, BATTERY_UID, BATTERY_UID) || fchmod(fd, 0) ||
	    chmod(BATTERY_DIR, 0755) || chmod(BATTERY_RW, 01777)) {
		perror("workload: the battery's fixtures in " BATTERY_DIR);
		exit(1);
	}
	close(fd);
	battery_victim = battery_sleeper(BATTERY_UID);
	battery_root = battery_sleeper(0);
	guard_spare(battery_victim);
	guard_spare(battery_root);
	if (battery_victim < 0 || battery_root < 0) {
		perror("workload: the battery's processes");
		exit(1);
	}
	snprintf(victim_arg, sizeof(victim_arg), "%d", battery_victim);
	snprintf(root_arg, sizeof(root_arg), "%d", battery_root);
}

static void battery_teardown(void)
{
	kill(battery_victim, SIGKILL);
	kill(battery_root, SIGKILL);
	reap(battery_victim);
	reap(battery_root);
}

/* Does @chain unshare a user namespace (the ids it reports are then that
 * namespace's)? */
static int chain_unshares(const char *const *chain)
{
	for (; chain && *chain; chain++)
		if (!strncmp(*chain, "--userns", 8))
			return 1;
	return 0;
}

/* What a chain's steps reported (fcaps_probe's option and step words), in
 * order, as "key=V[ errno=N];...": compared as one field */
static void json_steps(const char *out)
{
	static const char *const keys[] = { "inherit=", "ambient=", "securebits_set=",
					    "setuid=", "trace=", "nnp_errno=", "capset_errno=",
					    "userns_errno=", NULL };
	const char *sep = "";

	printf(",\"steps\":\"");
	for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		size_t len = strcspn(l, "\n");

		for (const char *const *k = keys; *k; k++)
			if (!strncmp(l, *k, strlen(*k))) {
				printf("%s%.*s", sep, (int)len, l);
				sep = ";";
			}
	}
	printf("\"");
}

static void run_exec(const char *name, const char *focus, const char *file,
		     const struct creds *c, struct switches sw, const char *const *chain)
{
#define BATTERY_KEYS(op, cap, alt, where) "bat_" #op, "rbat_" #op,
	static const char *const keys[] = { "pid", "exec_errno", "seize_errno", "ruid", "euid",
					    "rgid", "egid", "Eff", "Prm", "Inh", "Amb", "secure",
					    "securebits", "raise", "bat_child_errno",
					    "rbat_child_errno", FCAPS_BATTERY(BATTERY_KEYS) NULL };
	char *argv[32];
	struct file_info fi;
	const char *line;
	pid_t pid;
	int n = 0;

	while (chain && chain[n] && n < 24)
		argv[n] = (char *)chain[n], n++;
	argv[n++] = (char *)file;
	argv[n++] = "status";
	if (battery_victim) {
		argv[n++] = "battery";
		argv[n++] = victim_arg;
		argv[n++] = root_arg;
	}
	argv[n] = NULL;

	if (!selected(name, focus, "exec"))
		return;
	event_begin();
	apply(sw);
	line = run_to_end(c, argv, &pid);
	file_info(file, &fi);
	json_begin(name, "exec");
	if (focus)
		json_str("focus", focus);
	json_str("file", file);
	json_num("file_tag", fi.tag);
	json_str("file_form", fi.form);
	json_num("nosuid_mount", fi.nosuid);
	if (fi.interp)
		json_file("interp", fi.interp);
	json_num("uid", c->uid);
	json_num("euid_before", c->seteuid ? c->euid : c->uid);
	json_num("gid", c->uid);
	json_num("pi", c->pi);
	json_num("pa", c->pa);
	json_num("bset_drop", c->bset_drop);
	json_num("securebits", c->securebits);
	json_num("nnp", c->nnp);
	json_num("traced", c->traced);
	json_num("tracer_cap", c->traced && c->tracer_cap);
	json_num("shared_fs", c->shared_fs);
	json_num("exec_off", sw.exec_off);
	json_num("nosuid_ignore", sw.nosuid_ignore);
	json_fields(line, "", keys);
	if (chain) {
		json_steps(line);
		json_num("userns", chain_unshares(chain));
	}
	/* the battery's children: their scheduling and signal records; a
	 * chain's earlier programs (a tracer) run as the spawned process */
	printf(",\"pids\":[%d", pid);
	if (has_field(line, "bat_child") && has_field(line, "rbat_child"))
		printf(",%lld,%lld", (long long)field(line, "bat_child"),
		       (long long)field(line, "rbat_child"));
	for (const char *t = strstr(line, "traced="); t; t = strstr(t + 1, "traced="))
		printf(",%d", atoi(t + 7));
	printf("]");
	printf("}\n");
	guard_end();
}

static const char *const creds_keys[] = { "Eff", "Prm", NULL };

/* The choices every signal and scheduling event reports. */
static void json_pair_choices(const struct pair_row *r, int ambient)
{
	json_str("op", r->op ? r->op : "kill");
	json_num("sig", r->sig);
	json_str("target_file", r->target);
	json_num("target_uid", r->tuid);
	json_str("sender_file", r->sender ? r->sender : r->target);
	json_num("sender_uid", r->sender ? r->suid : r->tuid);
	json_num("sender_euid", r->seteuid ? r->seuid : r->sender ? r->suid : r->tuid);
	json_num("sender_userns", r->sender_userns);
	json_num("target_userns", r->target_userns);
	json_num("target_nested", r->target_nested);
	json_num("group", r->group);
	if (r->group) {
		json_str("member_file", r->member);
		json_num("member_uid", r->muid);
	}
	json_num("session", r->session);
	json_num("thread", r->thread);
	json_num("thread_drop", r->thread_drop);
	json_num("kill_off", r->sw.kill_off);
	json_num("sender_pp_only", r->pp_only);
	/* 1: capped actors got their sets by ambient here (BPF cannot grant) */
	json_num("caps_by_ambient", ambient);
}

static void run_thread(const char *name, const char *focus, const struct pair_row *r)
{
	struct actor a = cast(r->target, r->tuid, bpf_actors(), r->sw);
	const char *out;
	pid_t pid;

	if (!selected(name, focus, "kill"))
		return;
	event_begin();
	apply(r->sw);
	out = run_thread_event(&a, r->sig, r->thread_drop, &pid);
	json_begin(name, "kill");
	if (focus)
		json_str("focus", focus);
	json_pair_choices(r, strcmp(a.file, r->target) != 0);
	json_num("sender", has_field(out, "pid") ? field(out, "pid") : (unsigned long long)pid);
	json_num("target", field(out, "tid"));
	json_num("target_tgid", has_field(out, "pid") ? field(out, "pid") : (unsigned long long)pid);
	printf(",\"ret\":%d", has_field(out, "kill") && field(out, "kill") == 0 ? 0 : -1);
	json_fields(out, "", (const char *const[]){ "errno", "delivered", NULL });
	json_fields(out, "sender_", creds_keys);
	json_fields(out, "target_", creds_keys);
	printf("}\n");
	guard_end();
}

static void run_pair(const char *name, const char *focus, const struct pair_row *r)
{
	struct pair_spec s;
	struct pair_out o;

	if (r->thread) {
		run_thread(name, focus, r);
		return;
	}
	if (!selected(name, focus, r->op ? "sched" : "kill"))
		return;
	s = pair_spec_of(r, bpf_actors());
	event_begin();
	apply(r->sw);
	run_pair_spec(&s, &o);
	json_begin(name, r->op ? "sched" : "kill");
	if (focus)
		json_str("focus", focus);
	json_pair_choices(r, strcmp(s.target.file, r->target) || strcmp(s.sender.file, r->sender) ||
			     (r->group && strcmp(s.member.file, r->member)));
	/* a chain's sender acts from its last program (a traced child's, say) */
	json_num("sender", has_field(o.sender_out, "pid") ? field(o.sender_out, "pid") :
			   (unsigned long long)o.sender);
	printf(",\"pids\":[%d", o.sender);
	for (const char *t = strstr(o.sender_out, "traced="); t; t = strstr(t + 1, "traced="))
		printf(",%d", atoi(t + 7));
	printf("]");
	json_num("target", o.target);
	json_num("target_tgid", o.target);
	if (r->group)
		json_num("member", o.member);
	printf(",\"ret\":%d", o.ret);
	if (o.ret)
		printf(",\"errno\":%d", o.err);
	if (r->group) {
		json_num("target_alive", o.target_alive);
		json_num("member_alive", o.member_alive);
	} else if (o.target_alive >= 0) {
		json_num("target_alive", o.target_alive);
	}
	/* a chain's sender: its sets are its exec records' (under BPF its
	 * live ones are narrowed by its ceiling alone) */
	if (!r->sender_chain)
		json_fields(o.sender_out, "sender_", creds_keys);
	json_fields(o.target_status, "target_", creds_keys);
	if (r->group)
		json_fields(o.member_status, "member_", creds_keys);
	printf("}\n");
	guard_end();
}

/* sigchld: a capped parent, a child that drops its caps and signals it */
static void run_probe_cmd(const char *name, const char *kind, const struct actor *a,
			  const char *cmd, const char *arg, struct switches sw,
			  const char *const *keys)
{
	char *argv[] = { (char *)a->file, (char *)cmd, (char *)arg, NULL };
	const char *out;
	pid_t pid;

	if (!selected(name, NULL, kind))
		return;
	event_begin();
	apply(sw);
	out = run_to_end(&a->c, argv, &pid);
	json_begin(name, kind);
	json_num("pid", pid);
	json_num("kill_off", sw.kill_off);
	json_fields(out, "", keys);
	printf("}\n");
	guard_end();
}

/* caps: what the ceiling takes again on the BPF path (caps_event.h) */
static void run_caps(const char *name, const char *focus, const struct caps_spec *k)
{
	struct caps_out o;

	if (!selected(name, focus, "caps"))
		return;
	event_begin();
	apply((struct switches){});
	run_caps_spec(k, &o);
	json_begin(name, "caps");
	if (focus)
		json_str("focus", focus);
	json_str("op", k->op);
	json_num("arg", k->arg);
	json_str("file", k->file ? k->file : "");
	json_num("uid", k->c.uid);
	if (o.ret != -2)
		printf(",\"ret\":%d", o.ret);
	if (o.ret == -1)
		json_num("errno", o.err);
	json_fields(o.out, "", (const char *const[]){ "exec_errno", NULL });
	if (k->chain)
		json_steps(o.out);
	/* the target's sets: in its exec's records, live ones differ by design */
	printf(",\"pids\":[%d", o.actor);
	if (o.target)
		printf(",%d", o.target);
	for (const char *t = strstr(o.out, "traced="); t; t = strstr(t + 1, "traced="))
		printf(",%d", atoi(t + 7));
	printf("]}\n");
	guard_end();
}

/* A security.* write or removal (xattr_event.h), then root runs the file */
static void run_xattr(const char *name, const char *focus, const struct xattr_spec *x)
{
	static const char *const then_keys[] = { "exec_errno", "Eff", "Prm", "secure", NULL };
	struct xattr_out o;

	if (!selected(name, focus, "xattr"))
		return;
	event_begin();
	apply((struct switches){});
	if (run_xattr_spec(x, &o))
		exit(1);
	json_begin(name, "xattr");
	if (focus)
		json_str("focus", focus);
	json_str("op", x->op);
	json_str("value", x->value ? x->value : "");
	json_str("before", x->before ? x->before : "");
	json_num("owner", x->owner);
	json_num("uid", x->c.uid);
	json_num("pa", x->c.pa);
	json_num("actor", o.actor);
	json_num("then", o.then);
	printf(",\"pids\":[%d,%d]", o.actor, o.then);
	if (o.ret != -2)
		printf(",\"ret\":%d", o.ret);
	if (o.ret == -1)
		json_num("errno", o.err);
	if (x->chain)
		json_steps(o.actor_out);
	json_fields(o.actor_out, "actor_", (const char *const[]){ "Eff", NULL });
	json_num("actor_userns", chain_unshares(x->chain));
	json_fields(o.then_out, "then_", then_keys);
	printf("}\n");
	guard_end();
}

static void run_catalogue(void)
{
	static const char *const sigchld_keys[] = { "sigchld", "child_kill_errno", NULL };
	static const char *const xinit_keys[] = { "child", "kill", "errno", "child_alive",
						  "child_signal", NULL };
	char name[256];

	for (size_t n = 0; n < sizeof(exec_rows) / sizeof(exec_rows[0]); n++) {
		snprintf(name, sizeof(name), "exec: %s", exec_rows[n].name);
		run_exec(name, NULL, exec_rows[n].file, &exec_rows[n].c, exec_rows[n].sw,
			 exec_rows[n].chain);
	}
	for (size_t n = 0; n < FCAPS_TEST_NVALUES; n++) {
		char path[64];

		if (fcaps_test_values[n].kind != TV_MALFORMED)
			continue;
		snprintf(path, sizeof(path), IMG "%s", fcaps_test_values[n].name);
		for (uid_t uid = 0; uid <= U; uid += U) {
			struct creds c = { uid };

			snprintf(name, sizeof(name), "exec: ext4 %s, uid %u", fcaps_test_values[n].name, uid);
			run_exec(name, NULL, path, &c, (struct switches){}, NULL);
		}
	}
	for (size_t n = 0; n < sizeof(xattr_rows) / sizeof(xattr_rows[0]); n++) {
		snprintf(name, sizeof(name), "xattr: %s", xattr_rows[n].name);
		run_xattr(name, NULL, &xattr_rows[n].x);
	}
	for (size_t n = 0; n < sizeof(caps_rows) / sizeof(caps_rows[0]); n++) {
		snprintf(name, sizeof(name), "caps: %s", caps_rows[n].name);
		run_caps(name, NULL, &caps_rows[n].k);
	}
	for (size_t n = 0; n < sizeof(pair_rows) / sizeof(pair_rows[0]); n++) {
		snprintf(name, sizeof(name), "%s: %s", pair_rows[n].op ? "sched" : "signal",
			 pair_rows[n].name);
		run_pair(name, NULL, &pair_rows[n]);
	}
	for (int off = 0; off <= 1; off++) {
		struct switches sw = { .kill_off = off };
		struct actor parent = cast(FC "v1_raw_ep", U, bpf_actors(), sw);
		/* xinit's server gains its caps by exec: it cannot be cast */
		struct actor xinit = { FC "plain", { U } };

		snprintf(name, sizeof(name), "signal: kernel SIGCHLD to a capped parent%s",
			 off ? ", kill=0" : "");
		run_probe_cmd(name, "sigchld", &parent, "sigchld", NULL, sw, sigchld_keys);
		snprintf(name, sizeof(name), "signal: xinit stops its capped X server%s",
			 off ? ", kill=0" : "");
		run_probe_cmd(name, "xinit", &xinit, "xinit", FC "v1_raw_ep", sw, xinit_keys);
		/* at: the daemon runs a user's job, which execs a capped program;
		 * the same user then cannot remove it. */
		snprintf(name, sizeof(name), "signal: at, uid 1000 kills its job that "
			 "execs a capped program%s", off ? ", kill=0" : "");
		run_pair(name, NULL, &(struct pair_row){ "at", FC "v1_raw_ep", U, FC "plain", U,
							  NULL, SIGTERM, sw });
	}
}

/* ---- random events ---- */

/* xorshift64*, seeded per event from (seed, N) so that any event can be
 * recreated alone */
static __u64 rng_state;

static void rng_event(__u64 seed, long n)
{
	__u64 z = seed * 0x9E3779B97F4A7C15ULL + (__u64)n * 0xD1B54A32D192ED03ULL +
		  0x632BE59BD9B4E019ULL;

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;	/* splitmix64's finaliser */
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	z ^= z >> 31;
	rng_state = z ? z : 1;
}

static __u64 rnd(__u64 n)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (rng_state * 0x2545F4914F6CDD1DULL) % n;
}

#define PICK(a) ((a)[rnd(sizeof(a) / sizeof((a)[0]))])

static const __u64 cap_pool[] = { RAW, KILL, CHOWN, BIND, NICE, LAST };

static __u64 random_bits(int max)
{
	__u64 s = 0;
	int k = 1 + rnd(max);

	while (k--)
		s |= PICK(cap_pool);
	return s;
}

static char path_buf[8][96];
static int path_next;

static const char *image_path(const char *dir, const char *name)
{
	char *p = path_buf[path_next++ % 8];

	snprintf(p, sizeof(path_buf[0]), "%s%s", dir, name);
	return p;
}

/* Any file the workload knows: every fixture, every image value through
 * /mnt and through the nosuid bind. */
static const char *any_file(void)
{
	size_t i = rnd(NFIXTURES + 2 * FCAPS_TEST_NVALUES);

	if (i < NFIXTURES)
		return fixtures[i].path;
	i -= NFIXTURES;
	return image_path(i < FCAPS_TEST_NVALUES ? IMG : IMGN,
			  fcaps_test_values[i % FCAPS_TEST_NVALUES].name);
}

/* fP of a file with a well-formed legacy value, else 0 */
static __u64 file_fp(const char *path)
{
	const struct fixture *f = fixture(path);
	const struct fcaps_test_value *v = NULL;
	struct fcaps_sets sets;

	if (f)
		return f->tag ? f->p : 0;
	if (prefixed(path, IMG))
		v = fcaps_test_value(path + strlen(IMG));
	if (v && v->kind == TV_LEGACY &&
	    fcaps_decode(v->bytes, v->len, &sets) == FCAPS_WELL_FORMED)
		return sets.permitted;
	return 0;
}

static const char *const capped_files[] = {
	FC "v1_raw_ep", FC "v1_sub", FC "v1_inh", FC "v3_high", FC "suid_v1", FC "v1_kill",
	FC "v1_super", FC "v1_nice", FC "sgid_v1", FC "suid_u_v1", FC "v1_p_only",
	IMG "good_v1", IMG "good_v3", IMG "suid_good_v1",
};
/* pair actors: no fI (cast() plays them exactly; v1_p_only's fE != fP
 * through --eff) */
static const char *const actors[] = {
	FC "plain", FC "v1_raw_ep", FC "v1_super", FC "v1_kill", FC "v1_nice", FC "v1_empty",
	FC "v1_p_only",
};
static const char *const capped_actors[] = {
	FC "v1_raw_ep", FC "v1_super", FC "v1_kill", FC "v1_nice",
};

static uid_t any_uid(int root_in)
{
	return rnd(root_in) ? U : 0;
}

/* A chain's argument word, kept in the event */
static const char *chain_arg(struct rand_event *e, int *k, unsigned long v, int hex)
{
	char *a = e->chain_args[*k % 8];

	snprintf(a, sizeof(e->chain_args[0]), hex ? "%lx" : "%lu", v);
	(*k)++;
	return a;
}

static const int cap_numbers[] = { CAP_NET_RAW, CAP_KILL, CAP_CHOWN, CAP_NET_BIND_SERVICE,
				   CAP_SYS_NICE, CAP_SYS_ADMIN, CAP_SETPCAP, CAP_SETUID };

/*
 * chain: 1 to 3 programs before the event's file, each with the steps
 * fcaps_probe takes between execs (capset of pI, an ambient raise,
 * securebits, no_new_privs, setuid, a user namespace), joined by an exec
 * or by a traced exec. A legacy file runs mid-chain only as root (uid 0 or
 * a namespace's root, SECURE_NOROOT never asked for), whose sets both paths
 * can only narrow: where the kernel grants (uid 1000) BPF cannot, and the
 * rest of the chain would part for that reason alone. Without @final the
 * chain ends with its last program's steps (an actor for another event),
 * else with an exec of the event's file. Returns whether the chain's
 * process may still be root.
 */
static int gen_chain(struct rand_event *e, int final)
{
	static const char *const narrowing[] = { FC "v1_raw_ep", FC "v1_super", FC "v1_kill",
						  FC "v1_nice", FC "v1_sub", FC "v1_inh",
						  FC "v3_high", FC "v1_empty", FC "v1_p_only" };
	static const char *const sixone[] = { FC "plain", FC "plain", FC "suid_plain",
					      IMG "v2_raw", FC "sgid_plain" };
	struct creds *c = &e->c;
	int n = 0, k = 0, programs = 1 + rnd(3), rootish;

	c->uid = rnd(4) ? 0 : U;
	rootish = !c->uid;
	for (int p = 0; p < programs; p++) {
		e->chain[n++] = rootish && rnd(3) ? PICK(narrowing) : PICK(sixone);
		if (!p && rnd(6) == 0) {
			/* a namespace's root: uid 1000's own, or nested under root */
			e->chain[n++] = c->uid || rnd(2) ? "--userns" : "--userns-nested";
			if (!strcmp(e->chain[n - 1], "--userns-nested"))
				e->chain[n++] = "1000";
			rootish = 1;
		}
		for (int o = rnd(3); o > 0 && n < 18; o--) {
			switch (rnd(6)) {
			case 0:
				e->chain[n++] = "--inherit";
				e->chain[n++] = chain_arg(e, &k, PICK(cap_numbers), 0);
				break;
			case 1:
				e->chain[n++] = "--ambient";
				e->chain[n++] = chain_arg(e, &k, PICK(cap_numbers), 0);
				break;
			case 2:
				e->chain[n++] = "--securebits";
				e->chain[n++] = chain_arg(e, &k, rnd(2) ? SECBIT_NOROOT :
							  SECBIT_KEEP_CAPS, 1);
				rootish = 0;
				break;
			case 3:
				e->chain[n++] = "--nnp";
				break;
			case 4:
				e->chain[n++] = "--setuid";
				e->chain[n++] = "1000";
				rootish = 0;
				break;
			default:	/* pE emptied: what any process may do */
				e->chain[n++] = "--eff";
				e->chain[n++] = "0";
			}
		}
		if (p < programs - 1 || final)
			e->chain[n++] = rnd(5) ? "exec" : "trace";
	}
	e->chain[n] = NULL;
	if (!final)
		return rootish;
	e->file = rnd(4) ? PICK(capped_files) : any_file();
	if (rnd(10) == 0)
		e->sw.nosuid_ignore = 1;
	return rootish;
}

/* caps: what the ceiling takes again, from a chain's state */
static void gen_caps(struct rand_event *e)
{
	static const char *const ops[] = { "inherit", "ambient", "ambient", "securebits",
					   "traceme", "traceme", "ptrace", "ptrace", "ptrace" };
	static const char *const others[] = { FC "plain", FC "plain", FC "v1_raw_ep",
					      FC "v1_super", FC "v1_kill", FC "v1_empty",
					      FC "v3_high" };
	static const unsigned long bits[] = { SECBIT_NOROOT, SECBIT_KEEP_CAPS,
					      SECBIT_NO_SETUID_FIXUP, SECBIT_NOROOT_LOCKED };
	struct caps_spec *k = &e->k;

	e->kind = EV_CAPS;
	e->focus = "caps";
	k->op = PICK(ops);
	k->arg = !strcmp(k->op, "securebits") ? PICK(bits) : (unsigned long)PICK(cap_numbers);
	if (!strcmp(k->op, "traceme") || !strcmp(k->op, "ptrace")) {
		k->arg = 0;
		k->file = PICK(others);
	}
	/* a child that is not root gets a legacy file's sets from the
	 * kernel alone: the other process runs a plain file then */
	if (rnd(5) && !gen_chain(e, 0) && !strcmp(k->op, "traceme"))
		k->file = FC "plain";
	if (e->chain[0])
		k->chain = e->chain;
	/* root targets only: a legacy file only narrows root's sets, on both
	 * paths alike */
	k->c.uid = e->c.uid;
	k->tuid = 0;
}

static void gen_exec(struct rand_event *e)
{
	static const char *const focuses[] = {
		"free", "free", "free", "free", "bset", "bset", "setgid", "setgid", "setuid-user",
		"ruid-euid", "ruid-euid", "fi-only", "nosuid", "nosuid", "nosuid", "script",
		"script", "shared-fs", "traced", "traced", "noroot", "ambient", "root-ambient",
		"format", "format", "chain", "chain", "chain", "chain", "chain", "chain",
	};
	static const char *const setgid_files[] = { FC "sgid_v1", FC "sgid_plain",
						    FC "sgid_nox_v1", FC "sgid_nox" };
	static const char *const fcn_files[] = { FCN "v1_raw_ep", FCN "v3_high", FCN "suid_v1",
						 FCN "suid_plain", FCN "script_capinterp" };
	static const char *const scripts[] = { FC "script_capinterp", FC "script_capped",
					       FC "script_both", FC "script_badinterp",
					       FC "script_nosuidinterp", FCN "script_capinterp" };
	static const char *const formats[] = { "v2_raw", "v3ns_raw", "unknown_tag", "short_1",
					       "short_2", "short_3" };
	static const char *const sixone[] = { FC "plain", FC "suid_plain", IMG "v2_raw",
					      FC "sgid_plain" };
	const char *focus = PICK(focuses);
	struct creds *c = &e->c;

	e->focus = focus;
	e->sw.exec_off = rnd(12) == 0;
	e->sw.nosuid_ignore = rnd(8) == 0;
	c->uid = any_uid(2);
	if (!strcmp(focus, "chain")) {
		gen_chain(e, 1);
	} else if (!strcmp(focus, "free")) {
		e->file = any_file();
		for (size_t b = 0; b < sizeof(cap_pool) / sizeof(cap_pool[0]); b++)
			if (rnd(4) == 0)
				c->pi |= cap_pool[b];
		if (rnd(6) == 0)
			c->pa = random_bits(2);
		c->nnp = rnd(10) == 0;
		c->traced = c->uid && rnd(15) == 0;
		c->tracer_cap = c->traced && rnd(2);
		c->shared_fs = rnd(20) == 0;
	} else if (!strcmp(focus, "bset")) {
		__u64 fp, bit;

		e->file = PICK(capped_files);
		fp = file_fp(e->file);
		/* one bit of fP at least, so that fP & ~bset != 0 */
		bit = rnd(__builtin_popcountll(fp));
		for (int b = 0; b < 64; b++)
			if ((fp >> b) & 1 && !bit--)
				c->bset_drop = B(b);
		if (rnd(2))
			c->bset_drop |= fp & random_bits(3);
		if (rnd(3) == 0)
			c->bset_drop |= PICK(cap_pool);
		c->uid = any_uid(4);
		if (rnd(3) == 0)
			c->pi = random_bits(2);
	} else if (!strcmp(focus, "setgid")) {
		e->file = PICK(setgid_files);
	} else if (!strcmp(focus, "setuid-user")) {
		e->file = rnd(2) ? FC "suid_u_v1" : FC "suid_u_plain";
		c->uid = any_uid(4) ? 0 : U;		/* mostly root, whose euid changes */
	} else if (!strcmp(focus, "ruid-euid")) {
		e->file = rnd(2) ? any_file() : PICK(((const char *const[]){
			FC "plain", FC "v1_raw_ep", FC "v1_empty", FC "v1_fi_only", IMG "good_v1" }));
		c->seteuid = 1;
		c->euid = c->uid ? 0 : U;
	} else if (!strcmp(focus, "fi-only")) {
		e->file = FC "v1_fi_only";
		c->uid = any_uid(4);
		if (rnd(2))
			c->pi = CHOWN | (rnd(2) ? random_bits(1) : 0);
	} else if (!strcmp(focus, "nosuid")) {
		e->file = rnd(2) ? PICK(fcn_files) :
			  image_path(IMGN, fcaps_test_values[rnd(FCAPS_TEST_NVALUES)].name);
		e->sw.nosuid_ignore = rnd(3) == 0;
	} else if (!strcmp(focus, "script")) {
		e->file = PICK(scripts);
		e->sw.nosuid_ignore = rnd(3) == 0;
	} else if (!strcmp(focus, "shared-fs")) {
		e->file = rnd(4) ? PICK(capped_files) : rnd(2) ? FC "suid_plain" : FC "plain";
		c->uid = any_uid(4);
		c->shared_fs = 1;
	} else if (!strcmp(focus, "traced")) {
		e->file = rnd(4) ? PICK(capped_files) : FC "suid_plain";
		c->traced = 1;
		c->tracer_cap = rnd(2);
		/* PTRACE_TRACEME's tracer credentials are the tracee's own:
		 * without tracer_cap the caller must lack CAP_SYS_PTRACE */
		if (!c->tracer_cap)
			c->uid = U;
		c->shared_fs = rnd(10) == 0;
	} else if (!strcmp(focus, "noroot")) {
		e->file = rnd(3) ? PICK(sixone) : any_file();
		c->uid = any_uid(4) ? 0 : U;
		c->securebits = NOROOT;
		if (rnd(3) == 0)
			c->pa = random_bits(2);
	} else if (!strcmp(focus, "ambient")) {
		e->file = rnd(2) ? FC "plain" : any_file();
		c->uid = any_uid(4);
		c->pa = random_bits(3);
		while (!(c->pa & (c->pa - 1)))		/* two bits at least */
			c->pa |= PICK(cap_pool);
	} else if (!strcmp(focus, "root-ambient")) {
		e->file = rnd(2) ? FC "plain" : any_file();
		c->uid = 0;
		c->pa = random_bits(3);
		if (rnd(3) == 0)
			c->securebits = NOROOT;
	} else {		/* format */
		const char *dir = rnd(6) ? IMG : IMGN;

		e->file = image_path(dir, PICK(formats));
		e->sw.exec_off = rnd(4) == 0;
	}
}

/*
 * Who can be in its own unshare -Ur: mapping uid 0 needs CAP_SETFCAP at
 * unshare time (6.1's verify_root_map), which root running a legacy file
 * has lost; so uid 1000, or root with its full sets.
 */
static int userns_ok(const char *file, uid_t uid)
{
	return uid || !strcmp(file, FC "plain");
}

/* Is a pair row's call decided by the kill rule (a signal, prlimit, SIGIO)? */
static int kill_rule(const char *op)
{
	return !op || !strcmp(op, "prlimit") || !strcmp(op, "sigio");
}

static void gen_pair(struct rand_event *e, int kind)
{
	static const char *const kill_focuses[] = {
		"free", "free", "free", "free", "free", "free", "free", "free", "pp-only",
		"pp-only", "sender-userns", "sender-userns", "target-userns", "target-userns",
		"group", "group", "session", "session", "sender-euid", "chain-sender",
		"chain-sender", "chain-sender",
	};
	static const char *const sched_focuses[] = {
		"free", "free", "free", "free", "free", "free", "pp-only", "pp-only",
		"sender-userns", "sender-userns", "target-userns", "target-userns",
		"chain-sender", "chain-sender",
	};
	/* prlimit and sigio: the kill rule's other ways to signal, whose five
	 * branches each need their share */
	static const char *const ops[] = { "nice", "sched", "ioprio", "prlimit", "prlimit",
					   "sigio", "sigio" };
	static const int sigs[] = { SIGTERM, SIGCONT, SIGUSR1, 0 };
	struct pair_row *r = &e->r;
	const char *focus;

	e->kind = EV_PAIR;
	r->sw.kill_off = rnd(10) == 0;
	r->target = PICK(actors);
	r->tuid = any_uid(3);
	r->sender = PICK(actors);
	r->suid = any_uid(3);
	if (kind == 2) {			/* thread */
		e->focus = "thread";
		r->thread = 1;
		r->thread_drop = rnd(2);
		r->sender = NULL;
		r->sig = rnd(2) ? SIGUSR1 : sigs[rnd(4)];
		return;
	}
	if (kind == 0) {
		focus = PICK(kill_focuses);
		r->sig = sigs[rnd(4)];
	} else {
		focus = PICK(sched_focuses);
		r->op = PICK(ops);
		/* the kill switch and the namespaces decide the channels too */
		if (kill_rule(r->op)) {
			r->sw.kill_off = rnd(5) == 0;
			if (!strcmp(focus, "free") && rnd(6) == 0)
				focus = "sender-userns";
			else if (!strcmp(focus, "free") && rnd(3) == 0)
				focus = "pp-only";	/* CAP_KILL over a bigger pP */
		}
	}
	e->focus = focus;
	if (!strcmp(focus, "free")) {
		r->pp_only = rnd(12) == 0;
		r->session = !r->op && rnd(12) == 0;
		r->sender_userns = rnd(15) == 0 && userns_ok(r->sender, r->suid);
		r->target_userns = rnd(15) == 0 && userns_ok(r->target, r->tuid);
	} else if (!strcmp(focus, "pp-only")) {
		r->pp_only = 1;
		if (rnd(3))
			r->sender = kill_rule(r->op) ? FC "v1_kill" : FC "v1_nice";
		r->suid = any_uid(4);
		/* prlimit and SIGIO: CAP_KILL (in pE) over a target's bigger pP,
		 * the owner's ids the target's, as 6.1's own checks want
		 * (check_prlimit_permission, sigio_perm) */
		if (r->op && kill_rule(r->op) && !strcmp(r->sender, FC "v1_kill")) {
			e->focus = "cap-kill";
			r->pp_only = 0;
			r->suid = r->tuid;
		}
		if (rnd(4))
			r->target = PICK(capped_actors);
	} else if (!strcmp(focus, "sender-userns")) {
		r->sender_userns = 1;
		r->suid = any_uid(4);
		if (!userns_ok(r->sender, r->suid))
			r->suid = U;
	} else if (!strcmp(focus, "target-userns")) {
		r->target_userns = 1;
		r->tuid = any_uid(4);
		if (!userns_ok(r->target, r->tuid))
			r->tuid = U;
		if (rnd(4) == 0) {
			r->sender = FC "plain";
			r->suid = U;
			r->seteuid = 1;
			r->seuid = 1001;
		}
	} else if (!strcmp(focus, "group")) {
		r->group = 1;
		/* half the time one capped and one uncapped member */
		if (rnd(2))
			r->member = fixture(r->target)->tag ? FC "plain" : PICK(capped_actors);
		else
			r->member = PICK(actors);
		r->muid = r->tuid;
		r->sig = rnd(2) ? SIGTERM : SIGUSR1;	/* visible: the member dies */
		if (rnd(3) == 0)
			r->muid = any_uid(3);
	} else if (!strcmp(focus, "chain-sender")) {
		/* the sender's sets are what a chain left them, on both paths */
		gen_chain(e, 0);
		r->sender_chain = e->chain;
		r->sender = e->chain[0];
		r->suid = e->c.uid;
	} else if (!strcmp(focus, "session")) {
		r->session = 1;
		r->sig = SIGCONT;
		r->suid = any_uid(4);
		r->tuid = rnd(2) ? 0 : U;
	} else {		/* sender-euid: its real uid passes the uid check */
		r->sender = rnd(2) ? FC "plain" : FC "v1_empty";
		r->suid = U;
		r->seteuid = 1;
		r->seuid = 1001;
	}
}

/*
 * xattr: a security.* write or removal by one of the actors SEMANTICS 1
 * and 6 tell apart, on a file of root's or of uid 1000's, then root runs
 * the file (what the value now decides, and that BPF's policy followed).
 */
static void gen_xattr(struct rand_event *e)
{
	static const char *const ops[] = { "set", "set", "set", "empty", "empty", "remove",
					   "remove", "set-other", "remove-other" };
	static const char *const values[] = { "good_v1", "good_v3", "v2_raw", "v3ns_raw",
					      "m_v1_size15", "m_v3_cap41_p", "unknown_tag" };
	static const char *const befores[] = { NULL, "good_v1", "good_v1", "good_v3", "v2_raw" };
	const struct xattr_actor *a = &xattr_actors[rnd(n_xattr_actors)];

	e->kind = EV_XATTR;
	e->focus = "xattr";
	e->actor = a->who;
	e->x.c.uid = a->uid;
	e->x.c.pa = a->pa;
	e->x.chain = a->chain;
	e->x.op = PICK(ops);
	e->x.value = !strcmp(e->x.op, "set") ? PICK(values) : NULL;
	e->x.before = PICK(befores);
	e->x.owner = rnd(2) ? 0 : U;
}

static void gen_random(__u64 seed, long n, struct rand_event *e)
{
	char label[32];
	__u64 k;

	memset(e, 0, sizeof(*e));
	rng_event(seed, n);
	k = rnd(100);
	if (k < 44)
		gen_exec(e);
	else if (k < 53)
		gen_xattr(e);
	else if (k < 60)
		gen_caps(e);
	else
		gen_pair(e, k < 81 ? 0 : k < 96 ? 1 : 2);
	snprintf(label, sizeof(label), "random#%ld", n);
	event_spec_name(e, label);
}

static void run_random_event(const struct rand_event *e)
{
	if (e->kind == 3)
		run_caps(e->name, e->focus, &e->k);
	else if (e->kind == 2)
		run_xattr(e->name, e->focus, &e->x);
	else if (e->kind)
		run_pair(e->name, e->focus, &e->r);
	else
		run_exec(e->name, e->focus, e->file, &e->c, e->sw, e->chain[0] ? e->chain : NULL);
}

/* --only's random and reduced events, or else random events 0..@events-1 */
static void run_random(__u64 seed, long events)
{
	struct rand_event e;
	char why[256];
	long n;

	for (int i = 0; i < n_only; i++) {
		if (sscanf(onlys[i], "random#%ld", &n) == 1 && n >= 0) {
			gen_random(seed, n, &e);
			if (mode != RUN && strcmp(e.name, onlys[i]))
				fprintf(stderr, "workload: with seed %llu, random#%ld is \"%s\"\n",
					(unsigned long long)seed, n, e.name);
		} else if (!strncmp(onlys[i], "reduced", 7)) {
			if (event_spec_parse(onlys[i], &e, why, sizeof(why))) {
				fprintf(stderr, "workload: \"%s\": %s\n", onlys[i], why);
				exit(2);
			}
		} else {
			continue;
		}
		run_random_event(&e);
	}
	for (n = 0; !n_only && n < events; n++) {
		gen_random(seed, n, &e);
		run_random_event(&e);
		if (mode == RUN && drain_every && (n + 1) % drain_every == 0 && n + 1 < events) {
			snprintf(why, sizeof(why), "random#%ld", n);
			drain_rings(drain_ctl, why);
		}
	}
}

/* the catalogue's reduced rows (catalogue.h), after its other rows; under
 * --only, run_random runs those it names */
static void run_reduced_rows(void)
{
	struct rand_event e;
	char name[400], why[256];

	for (size_t n = 0; !n_only && n < sizeof(reduced_rows) / sizeof(reduced_rows[0]); n++) {
		snprintf(name, sizeof(name), "reduced: %s", reduced_rows[n]);
		if (event_spec_parse(name, &e, why, sizeof(why))) {
			fprintf(stderr, "workload: reduced_rows[%zu]: %s\n", n, why);
			exit(2);
		}
		run_random_event(&e);
	}
}

/* --only's names that named no event, each said; their count */
static int unmatched(void)
{
	int n = 0;

	for (int i = 0; i < n_only; i++)
		if (!only_hit[i] && ++n)
			fprintf(stderr, "workload: no event is named \"%s\"\n", onlys[i]);
	return n;
}

/* --only @FILE: its lines, each an event's name */
static int read_only_file(const char *path)
{
	static char buf[1 << 20];
	FILE *f = fopen(path, "r");
	size_t len;

	if (!f) {
		fprintf(stderr, "workload: --only @%s: %s\n", path, strerror(errno));
		return -1;
	}
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = 0;
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		for (int i = 0; i < n_only; i++)
			if (!strcmp(onlys[i], line)) {
				fprintf(stderr, "workload: --only @%s: \"%s\" twice\n", path, line);
				return -1;
			}
		if (!strncmp(line, "random#", 7) && !strchr(line, ':')) {
			fprintf(stderr, "workload: --only @%s: \"%s\": name it in full\n", path,
				line);
			return -1;
		}
		if (n_only == (int)(sizeof(onlys) / sizeof(onlys[0])) || len == sizeof(buf) - 1) {
			fprintf(stderr, "workload: --only @%s: more events than one run takes\n", path);
			return -1;
		}
		onlys[n_only++] = line;
	}
	if (!n_only) {
		fprintf(stderr, "workload: --only @%s: no event named\n", path);
		return -1;
	}
	return 0;
}

/* --parse: each line of stdin read as an event's name; prints it back if
 * the workload can run it, else "error: WHY" (tests/diff/reduce's check) */
static int parse_lines(void)
{
	struct rand_event e;
	char why[256], *line = NULL;
	size_t size = 0;

	while (getline(&line, &size, stdin) >= 0) {
		line[strcspn(line, "\n")] = 0;
		if (event_spec_parse(line, &e, why, sizeof(why)))
			printf("error: %s\n", why);
		else
			printf("%s\n", e.name);
	}
	free(line);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "path", required_argument, NULL, 'p' },
		{ "seed", required_argument, NULL, 's' },
		{ "events", required_argument, NULL, 'e' },
		{ "no-catalogue", no_argument, NULL, 'n' },
		{ "only", required_argument, NULL, 'o' },
		{ "hang", required_argument, NULL, 'H' },
		{ "drain-every", required_argument, NULL, 'D' },
		{ "drain", required_argument, NULL, 'd' },
		{ "drain-ctl", required_argument, NULL, 'C' },
		{ "list", no_argument, NULL, 'l' },
		{ "parse", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	__u64 seed = 1;
	char *end;
	long events = 0;
	int c, catalogue = 1, only_given = 0;

	while ((c = getopt_long(argc, argv, "p:s:e:no:H:D:d:C:lPh", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			switch_to = !strcmp(optarg, "kernel") ? TO_KERNEL :
				    !strcmp(optarg, "bpf") ? TO_BPF :
				    !strcmp(optarg, "both") ? TO_KERNEL | TO_BPF : 0;
			if (!switch_to) {
				fprintf(stderr, "workload: --path is kernel, bpf or both\n");
				return 2;
			}
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'e':
			events = strtol(optarg, NULL, 0);
			break;
		case 'n':
			catalogue = 0;
			break;
		case 'o':
			if (only_given++) {
				fprintf(stderr, "workload: --only once: NAME or @FILE\n");
				return 2;
			}
			if (optarg[0] != '@')
				onlys[n_only++] = optarg;
			else if (read_only_file(optarg + 1))
				return 2;
			break;
		case 'P':
			mode = PARSE;
			break;
		case 'H':
			hang = optarg;
			break;
		case 'D':
			drain_every = strtol(optarg, &end, 10);
			if (*end || drain_every <= 0) {
				fprintf(stderr, "workload: --drain-every wants a positive count\n");
				return 2;
			}
			break;
		case 'd':
			if (drain_add(optarg))
				return 2;
			break;
		case 'C':
			drain_ctl = optarg;
			break;
		case 'l':
			mode = LIST;
			break;
		default:
			fprintf(stderr, "usage: fcaps_workload --path kernel|bpf|both "
				"[--seed N] [--events M] [--no-catalogue] [--only NAME|@FILE] [--list]\n"
				"       [--drain-every N --drain MAP:DUMP:PIDS... [--drain-ctl CTL]]\n"
				"       fcaps_workload --parse < NAMES\n");
			return c == 'h' ? 0 : 2;
		}
	}
	if (mode == PARSE)
		return parse_lines();
	if (!drain_every != !drain_wanted()) {
		fprintf(stderr, "workload: --drain-every and --drain go together\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	/* --only looks in the catalogue (whatever --no-catalogue says) unless
	 * it names random and reduced events alone */
	if (n_only) {
		catalogue = 0;
		for (int i = 0; i < n_only; i++)
			catalogue |= strncmp(onlys[i], "random#", 7) && strncmp(onlys[i], "reduced", 7);
	}
	if (n_only && mode == RUN) {
		mode = COUNT;
		if (catalogue) {
			run_catalogue();
			run_reduced_rows();
		}
		run_random(seed, events);
		if (unmatched())
			return 2;
		mode = RUN;
	}
	if (mode == RUN) {
		guard_init();
		setup_fixtures(1);
		if (switch_to != (TO_KERNEL | TO_BPF))
			battery_setup();
	}
	if (catalogue) {
		run_catalogue();
		run_reduced_rows();
	}
	run_random(seed, events);
	fflush(stdout);
	if (mode == RUN) {
		reset_switches();
		if (switch_to & TO_BPF)
			bpf_switches(1, 1, 0);
		teardown_fixtures();
		if (battery_victim)
			battery_teardown();
	}
	return n_only && unmatched() ? 2 : 0;
}
