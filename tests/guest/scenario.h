/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers for the guest scenario tests: run a program under chosen
 * credentials and read what fcaps_probe reports. */
#ifndef FCAPS_SCENARIO_H
#define FCAPS_SCENARIO_H

#include <linux/types.h>
#include <sys/types.h>

#define PROBE "/usr/local/bin/fcaps_probe"

/*
 * Credentials of the process that will exec, taken in a forked child of a
 * root process, in this order: pI (and pA's bits in pI), the bounding set,
 * the securebits, the gids and uids, the permitted set, pA, no_new_privs.
 */
struct creds {
	uid_t uid;		/* real uid (and gid); also euid unless seteuid */
	__u64 pi;		/* inheritable set */
	__u64 pa;		/* ambient set (also made permitted and inheritable) */
	unsigned int nnp:1;	/* no_new_privs */
	unsigned int traced:1;	/* ptraced; the tracer lacks CAP_SYS_PTRACE unless
				 * tracer_cap (see spawn) */
	unsigned int tracer_cap:1; /* traced by root holding CAP_SYS_PTRACE */
	unsigned int shared_fs:1;  /* exec from a clone(CLONE_FS) child whose
				    * parent lives on: LSM_UNSAFE_SHARE */
	unsigned int seteuid:1;	/* the euid is euid, not uid (no setid exec) */
	unsigned int newpgrp:1;	/* lead a new process group */
	uid_t euid;
	unsigned int securebits; /* SECBIT_* set while still root */
	__u64 bset_drop;	/* dropped from the bounding set while still root */
	pid_t pgrp;		/* join this process group (0: stay) */
};

/* Fork, take @c, exec @argv[0] with stdout (and exec errors, as
 * "exec_errno=N") on a pipe whose read end is returned in @out. */
pid_t spawn(const struct creds *c, char *const argv[], int *out);

/* A process of a signal or scheduling event: fcaps_probe (or a copy) run
 * as @c with the probe options the flags ask for. */
struct actor {
	const char *file;
	struct creds c;
	unsigned int set_eff:1;	/* --eff eff first: what its exec would have left */
	unsigned int setsid:1;	/* --setsid: a session of its own */
	unsigned int userns:1;	/* --userns: unshare -Ur before acting */
	unsigned int userns_nested:1;	/* --userns-nested 1000 (run as root) */
	unsigned int pp_only:1;	/* --eff 0 last: pE emptied, pP kept */
	__u64 eff;
	/* fcaps_probe words after its options, before the command: a chain
	 * ({ options..., "exec", FILE2, ... }); NULL: none */
	const char *const *chain;
};

/*
 * BPF cannot grant a file's capabilities (docs/design.md), so where the kernel
 * would give an actor a legacy file's sets by exec, the BPF runs give the
 * same live sets another way: @plain (no xattr) run with fP as its ambient
 * set (so pP = fP), root keeping only that set through SECBIT_NOROOT, and
 * the effective set narrowed to fE when fE != fP. pI and pA then hold fP
 * where the kernel's exec leaves them empty; no signal or scheduling
 * decision reads them.
 */
void actor_by_ambient(struct actor *a, const char *plain, __u64 fe, __u64 fp);

/*
 * A signal or scheduling event: start @target ("pause") and, for a group,
 * @member in the target's process group; wait until each has reported its
 * credentials; run "@sender kill|sched PID ARG" (PID is -pgid for a
 * group); then kill the targets. @op is NULL for a signal (ARG is @sig) or
 * nice|sched|ioprio|prlimit|sigio.
 */
struct pair_spec {
	struct actor target, member, sender;
	const char *op;
	int sig;
	unsigned int group:1;
};

struct pair_out {
	pid_t target, member, sender;
	int ret, err;			/* the sender's call: 0, or -1 and errno */
	int target_alive, member_alive;	/* group, sigio: after the signal; else -1 */
	char target_status[512], member_status[512], sender_out[1024];
};

void run_pair_spec(const struct pair_spec *s, struct pair_out *o);
/*
 * A signal within a thread group: @a runs "thread SIG drop|keep"; its
 * main thread tgkills a sibling thread. @out gets everything it printed.
 */
const char *run_thread_event(const struct actor *a, int sig, int drop, pid_t *pid);
/*
 * Run @argv as @c to the end and return all it printed; its pid goes to
 * @pid. A child it reports alive ("child=PID child_alive=1") is killed.
 */
const char *run_to_end(const struct creds *c, char *const argv[], pid_t *pid);
/* Read one line (without newline) or, with @all, everything until EOF. */
char *read_output(int fd, int all);
/* The value of "key=..." in @line as a number; -1 (all ones) if absent. */
const char *field_at(const char *line, const char *key);
unsigned long long field(const char *line, const char *key);
int has_field(const char *line, const char *key);
void reap(pid_t pid);

int set_switch(const char *name, int value);
void reset_switches(void);

struct fcaps_decision;
/* The newest BPF decision of @hook taken for task @pid (and, unless 0,
 * about @target); 0 if found. */
int find_decision(__u32 hook, __u32 pid, struct fcaps_decision *out);
int find_decision_to(__u32 hook, __u32 pid, __u32 target, struct fcaps_decision *out);
/* Set the BPF side's switches (the loaded fcaps config map); 0 or -1. */
int bpf_switches(__u32 exec, __u32 kill, __u32 nosuid_ignore);

#include "tap.h"

#endif
