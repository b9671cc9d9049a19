/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers for the guest scenario tests: run a program under chosen
 * credentials and read what fcaps_probe reports. */
#ifndef FCAPS_SCENARIO_H
#define FCAPS_SCENARIO_H

#include <linux/types.h>
#include <sys/types.h>

#define PROBE "/usr/local/bin/fcaps_probe"

/* Credentials of the process that will exec. */
struct creds {
	uid_t uid;
	__u64 pi;		/* inheritable set */
	__u64 pa;		/* ambient set (also made permitted and inheritable) */
	unsigned int nnp:1;	/* no_new_privs */
	unsigned int traced:1;	/* ptraced by a uid-1000 tracer without caps */
	unsigned int noroot:1;	/* SECBIT_NOROOT: root keeps only pA across exec */
};

/* Fork, take @c, exec @argv[0] with stdout (and exec errors, as
 * "exec_errno=N") on a pipe whose read end is returned in @out. */
pid_t spawn(const struct creds *c, char *const argv[], int *out);
/*
 * A signal or scheduling event: start @target ("pause") as @tc and wait
 * until it has exec'd, run "@sender kill|sched TPID ARG" as @sc, then kill
 * the target. @op is NULL for a signal (ARG is @sig) or nice|sched|ioprio.
 * Returns the sender's output; the pids go to @tp and @sp.
 */
const char *run_pair_procs(const struct creds *tc, const char *target,
			   const struct creds *sc, const char *sender,
			   const char *op, int sig, pid_t *tp, pid_t *sp);
/*
 * Run @argv as @c to the end and return all it printed; its pid goes to
 * @pid. A child it reports alive ("child=PID child_alive=1") is killed.
 */
const char *run_to_end(const struct creds *c, char *const argv[], pid_t *pid);
/* Read one line (without newline) or, with @all, everything until EOF. */
char *read_output(int fd, int all);
/* The value of "key=..." in @line as a number; -1 (all ones) if absent. */
unsigned long long field(const char *line, const char *key);
int has_field(const char *line, const char *key);
void reap(pid_t pid);

int set_switch(const char *name, int value);
void reset_switches(void);

struct fcaps_decision;
/* The newest BPF decision of @hook taken for task @pid; 0 if found. */
int find_decision(__u32 hook, __u32 pid, struct fcaps_decision *out);
/* Set the BPF side's switches (the loaded fcaps config map); 0 or -1. */
int bpf_switches(__u32 exec, __u32 kill, __u32 nosuid_ignore);

void check(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int finish(void);

#endif
