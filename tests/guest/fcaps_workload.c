// SPDX-License-Identifier: GPL-2.0
/*
 * fcaps_workload: the differential's workload. Runs the catalogue's events
 * (catalogue.h) and/or M seeded random ones, each with a stable name, and
 * prints one JSON line per event with what the workload itself saw: exec
 * errno and credentials, signal and scheduling results, and the pids whose
 * records in the decision maps belong to the event.
 *
 *   fcaps_workload --path kernel|bpf|both [--seed N] [--events M] [--no-catalogue]
 *
 * --path says whose switches a row's switch settings go to: the kernel's
 * sysctls, the BPF config map, or both (shadow runs).
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <sys/wait.h>
#include "catalogue.h"

static enum { TO_KERNEL = 1, TO_BPF = 2 } switch_to = TO_KERNEL;

static void apply(struct switches s)
{
	if (switch_to & TO_KERNEL) {
		reset_switches();
		if ((s.exec_off && set_switch("exec", 0)) ||
		    (s.kill_off && set_switch("kill", 0)) ||
		    (s.nosuid_ignore && set_switch("nosuid_ignore", 1)))
			exit(1);
	}
	if ((switch_to & TO_BPF) && bpf_switches(!s.exec_off, !s.kill_off, s.nosuid_ignore)) {
		fprintf(stderr, "workload: cannot set the BPF switches (loaded?)\n");
		exit(1);
	}
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
	printf("\"%s\":\"", k);
	for (; *v; v++)
		printf(*v == '"' || *v == '\\' ? "\\%c" : "%c", *v);
	printf("\"");
}

/* The probe's key=value words as JSON numbers. */
static void json_fields(const char *line, const char *const *keys)
{
	for (; *keys; keys++)
		if (has_field(line, *keys))
			printf(",\"%s\":%lld", *keys, (long long)field(line, *keys));
}

static void run_exec(const char *name, const char *file, const struct creds *c,
		     struct switches sw)
{
	static const char *const keys[] = { "pid", "exec_errno", "ruid", "euid", "Eff",
					    "Prm", "Inh", "Amb", "secure", NULL };
	char *argv[] = { (char *)file, "status", NULL };
	const char *line;
	pid_t pid;

	event_begin();
	apply(sw);
	line = run_to_end(c, argv, &pid);
	printf("{\"workload\":%d,", getpid());
	json_str("name", name);
	printf(",\"kind\":\"exec\",");
	json_str("file", file);
	printf(",\"uid\":%u,\"pi\":%llu,\"pa\":%llu,\"nnp\":%u,\"traced\":%u", c->uid,
	       (unsigned long long)c->pi, (unsigned long long)c->pa, c->nnp, c->traced);
	json_fields(line, keys);
	printf("}\n");
}

static void run_pair(const char *name, const struct pair_row *r)
{
	struct creds tc = { r->tuid }, sc = { r->suid };
	const char *line;
	pid_t tp, sp;

	event_begin();
	apply(r->sw);
	line = run_pair_procs(&tc, r->target, &sc, r->sender, r->op, r->sig, &tp, &sp);
	printf("{\"workload\":%d,", getpid());
	json_str("name", name);
	printf(",\"kind\":\"%s\",", r->op ? "sched" : "kill");
	json_str("op", r->op ? r->op : "kill");
	printf(",\"sig\":%d,", r->sig);
	json_str("target_file", r->target);
	printf(",\"target_uid\":%u,", r->tuid);
	json_str("sender_file", r->sender);
	printf(",\"sender_uid\":%u,\"target\":%d,\"sender\":%d", r->suid, tp, sp);
	printf(",\"ret\":%d", has_field(line, r->op ? "sched" : "kill") &&
	       field(line, r->op ? "sched" : "kill") == 0 ? 0 : -1);
	json_fields(line, (const char *const[]){ "errno", NULL });
	printf("}\n");
}

/* sigchld: a capped parent, a child that drops its caps and signals it */
static void run_probe_cmd(const char *name, const char *kind, char *const argv[],
			  struct switches sw, const char *const *keys)
{
	struct creds c = { U };
	const char *out;
	pid_t pid;

	event_begin();
	apply(sw);
	out = run_to_end(&c, argv, &pid);
	printf("{\"workload\":%d,", getpid());
	json_str("name", name);
	printf(",\"kind\":\"%s\",\"pid\":%d", kind, pid);
	json_fields(out, keys);
	printf("}\n");
}

static void run_catalogue(void)
{
	static const char *const sigchld_keys[] = { "sigchld", "child_kill_errno", NULL };
	static const char *const xinit_keys[] = { "child", "kill", "errno", "child_alive",
						  "child_signal", NULL };
	char name[160];

	for (size_t n = 0; n < sizeof(exec_rows) / sizeof(exec_rows[0]); n++) {
		snprintf(name, sizeof(name), "exec: %s", exec_rows[n].name);
		run_exec(name, exec_rows[n].file, &exec_rows[n].c, exec_rows[n].sw);
	}
	for (size_t n = 0; n < FCAPS_TEST_NVALUES; n++) {
		char path[64];

		if (strncmp(fcaps_test_values[n].name, "m_", 2))
			continue;
		snprintf(path, sizeof(path), IMG "%s", fcaps_test_values[n].name);
		for (uid_t uid = 0; uid <= U; uid += U) {
			struct creds c = { uid };

			snprintf(name, sizeof(name), "exec: ext4 %s, uid %u", fcaps_test_values[n].name, uid);
			run_exec(name, path, &c, (struct switches){});
		}
	}
	for (size_t n = 0; n < sizeof(pair_rows) / sizeof(pair_rows[0]); n++) {
		snprintf(name, sizeof(name), "%s: %s", pair_rows[n].op ? "sched" : "signal",
			 pair_rows[n].name);
		run_pair(name, &pair_rows[n]);
	}
	for (int off = 0; off <= 1; off++) {
		char *sigchld[] = { FC "v1_raw_ep", "sigchld", NULL };
		char *xinit[] = { FC "plain", "xinit", FC "v1_raw_ep", NULL };

		snprintf(name, sizeof(name), "signal: kernel SIGCHLD to a capped parent%s",
			 off ? ", kill=0" : "");
		run_probe_cmd(name, "sigchld", sigchld, (struct switches){ .kill_off = off },
			      sigchld_keys);
		snprintf(name, sizeof(name), "signal: xinit stops its capped X server%s",
			 off ? ", kill=0" : "");
		run_probe_cmd(name, "xinit", xinit, (struct switches){ .kill_off = off },
			      xinit_keys);
		/* at: the daemon runs a user's job, which execs a capped program;
		 * the same user then cannot remove it. */
		snprintf(name, sizeof(name), "signal: at, uid 1000 kills its job that "
			 "execs a capped program%s", off ? ", kill=0" : "");
		run_pair(name, &(struct pair_row){ "at", FC "v1_raw_ep", U, FC "plain", U,
						    NULL, SIGTERM, { .kill_off = off } });
	}
}

/* xorshift64*: a run is replayed exactly from its seed */
static __u64 rng_state;

static __u64 rnd(__u64 n)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (rng_state * 0x2545F4914F6CDD1DULL) % n;
}

static const char *random_file(void)
{
	size_t nf = sizeof(fixtures) / sizeof(fixtures[0]);
	static char path[64];
	size_t i = rnd(nf + FCAPS_TEST_NVALUES);

	if (i < nf)
		return fixtures[i].path;
	snprintf(path, sizeof(path), IMG "%s", fcaps_test_values[i - nf].name);
	return path;
}

static const char *random_actor(void)
{
	static const char *const actors[] = { FC "plain", FC "v1_raw_ep", FC "v1_super",
					      FC "v1_kill", FC "v1_nice", FC "v1_sub" };

	return actors[rnd(sizeof(actors) / sizeof(actors[0]))];
}

static void run_random(__u64 seed, long events)
{
	static const __u64 pool[] = { RAW, KILL, CHOWN, BIND, LAST };
	static const char *const ops[] = { "nice", "sched", "ioprio" };
	static const int sigs[] = { SIGTERM, SIGCONT, SIGUSR1, 0 };
	char name[256];

	rng_state = seed * 2654435761ULL + 0x9E3779B97F4A7C15ULL;
	for (long n = 0; n < events; n++) {
		struct switches sw = { .exec_off = rnd(10) == 0, .kill_off = rnd(10) == 0,
				       .nosuid_ignore = rnd(8) == 0 };
		__u64 k = rnd(10);

		if (k < 6) {
			struct creds c = { rnd(2) ? U : 0 };
			const char *file = random_file();

			for (size_t b = 0; b < sizeof(pool) / sizeof(pool[0]); b++)
				if (rnd(4) == 0)
					c.pi |= pool[b];
			if (c.uid && rnd(6) == 0)
				c.pa = BIND;
			c.nnp = rnd(10) == 0;
			c.traced = c.uid && rnd(15) == 0;
			snprintf(name, sizeof(name), "random#%ld: exec %s uid %u pI=%#llx pA=%#llx%s%s%s%s%s",
				 n, file, c.uid, (unsigned long long)c.pi, (unsigned long long)c.pa,
				 c.nnp ? " nnp" : "", c.traced ? " traced" : "",
				 sw.exec_off ? " exec=0" : "", sw.nosuid_ignore ? " nosuid_ignore=1" : "",
				 sw.kill_off ? " kill=0" : "");
			run_exec(name, file, &c, sw);
		} else {
			struct pair_row r = { NULL, random_actor(), rnd(3) ? U : 0,
					      random_actor(), rnd(3) ? U : 0 };

			r.sw = sw;
			if (k < 9)
				r.sig = sigs[rnd(sizeof(sigs) / sizeof(sigs[0]))];
			else
				r.op = ops[rnd(3)];
			snprintf(name, sizeof(name), "random#%ld: %s %s uid %u -> %s uid %u%s", n,
				 r.op ? r.op : "kill", r.sender, r.suid, r.target, r.tuid,
				 sw.kill_off ? " kill=0" : "");
			if (!r.op)
				snprintf(name + strlen(name), sizeof(name) - strlen(name),
					 " sig %d", r.sig);
			run_pair(name, &r);
		}
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "path", required_argument, NULL, 'p' },
		{ "seed", required_argument, NULL, 's' },
		{ "events", required_argument, NULL, 'e' },
		{ "no-catalogue", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	__u64 seed = 1;
	long events = 0;
	int c, catalogue = 1;

	while ((c = getopt_long(argc, argv, "p:s:e:nh", opts, NULL)) != -1) {
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
		default:
			fprintf(stderr, "usage: fcaps_workload --path kernel|bpf|both "
				"[--seed N] [--events M] [--no-catalogue]\n");
			return c == 'h' ? 0 : 2;
		}
	}
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	setup_fixtures(1);
	if (catalogue)
		run_catalogue();
	run_random(seed, events);
	fflush(stdout);
	reset_switches();
	if (switch_to & TO_BPF)
		bpf_switches(1, 1, 0);
	umount("/tmp/fcn");
	return 0;
}
