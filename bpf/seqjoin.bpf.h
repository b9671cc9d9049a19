/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tables that carry an event's seq from BPF's decision to the
 * kernel's tracepoint, so that the two records join: they never decide.
 */
#ifndef FCAPS_SEQJOIN_BPF_H
#define FCAPS_SEQJOIN_BPF_H

#include "maps.bpf.h"

/*
 * The seq of the exec a task is in, from bprm_creds_for_exec to the
 * kernel's tracepoint (an exec sleeps in between), so that one execve is
 * one event, however many interpreters, and the kernel's record joins
 * BPF's: a slot of a global table chosen by the task's tid, which holds
 * until de_thread(), after the tracepoint. It only joins records: no
 * decision is ever taken from it. Task storage was the first design: its
 * slot, created in every new process, cost 960 of exec_begin's 1,039
 * instructions (docs/benchmark.md). A slot another exec overwrote in between
 * (tids equal modulo the table) leaves the exec a second seq and no
 * kernel record, which the differential reports.
 */
#define FCAPS_EXEC_SLOTS	4096
extern struct fcaps_exec_call fcaps_execs[FCAPS_EXEC_SLOTS];	/* shared.bpf.c */

static __always_inline struct fcaps_exec_call *fcaps_exec_slot(__u32 tid)
{
	return &fcaps_execs[tid & (FCAPS_EXEC_SLOTS - 1)];
}

/* The seq of @tid's exec, or 0 */
static __always_inline __u64 fcaps_exec_seq_get(__u32 tid)
{
	struct fcaps_exec_call *e = fcaps_exec_slot(tid);
	__u64 seq = e->seq;

	/* the tid read after the seq: a writer clears it first, sets it last */
	asm volatile("" ::: "memory");
	return *(volatile __u64 *)&e->tid == tid ? seq : 0;
}

static __always_inline void fcaps_exec_seq_set(__u32 tid, __u64 seq)
{
	struct fcaps_exec_call *e = fcaps_exec_slot(tid);

	*(volatile __u64 *)&e->tid = 0;
	asm volatile("" ::: "memory");
	e->seq = seq;
	asm volatile("" ::: "memory");
	*(volatile __u64 *)&e->tid = tid;
}


/*
 * The seq of a signal or scheduling call, from the fmod_ret program to the
 * kernel's tracepoint inside the same security_task_*() call, in a slot of
 * a global table chosen by the caller's tid: plain loads and stores, where
 * a per-CPU map or task storage cost a helper call on each side (the bench
 * note). The tracepoint takes the seq only for its own tid, hook, target
 * and signal, and takes it once; a slot another call overwrote in between
 * (tids equal modulo the table, on another CPU or after a sleep) gives no
 * seq, so that the kernel's record goes missing, which the differential
 * reports, rather than joining the wrong event. The tid is written last
 * and cleared first, and read before and after the rest: on x86 (stores
 * seen in order) a reader that sees its tid twice read one writer's slot.
 * A signal sent with explicit credentials (USB completion, maybe in
 * interrupt context between a task's two halves) has a slot of its own,
 * matched by the credentials it carries. (struct fcaps_call: fcaps.h, as
 * the skeleton shows these globals to the loader.)
 */
extern struct fcaps_call fcaps_calls[FCAPS_CALL_SLOTS];
extern struct fcaps_explicit_call fcaps_explicit_call;

static __always_inline struct fcaps_call *fcaps_call_slot(__u32 tid)
{
	return &fcaps_calls[tid & (FCAPS_CALL_SLOTS - 1)];
}

static __always_inline void fcaps_call_begin(__u32 tid, __u32 hook, __u32 target,
					     int sig, __u64 seq)
{
	struct fcaps_call *c = fcaps_call_slot(tid);

	FCAPS_READ_ONCE(c->tid) = 0;
	fcaps_barrier();
	c->hook = hook;
	c->target = target;
	c->sig = sig;
	c->seq = seq;
	fcaps_barrier();
	FCAPS_READ_ONCE(c->tid) = tid;
}

/* Forget the call (it was refused before the kernel's tracepoint). */
static __always_inline void fcaps_call_end(__u32 tid)
{
	__sync_val_compare_and_swap(&fcaps_call_slot(tid)->tid, (__u64)tid, 0);
}

/* The seq fcaps_call_begin() gave this very call, taken once; 0 if none */
static __always_inline __u64 fcaps_call_take(__u32 tid, __u32 hook, __u32 target, int sig)
{
	struct fcaps_call *c = fcaps_call_slot(tid);
	__u64 seq;
	int same;

	if (FCAPS_READ_ONCE(c->tid) != tid)
		return 0;
	fcaps_barrier();
	seq = c->seq;
	same = c->hook == hook && c->target == target && c->sig == sig;
	fcaps_barrier();
	if (!same || __sync_val_compare_and_swap(&c->tid, (__u64)tid, 0) != tid)
		return 0;
	return seq;
}

#endif /* FCAPS_SEQJOIN_BPF_H */
