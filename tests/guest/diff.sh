#!/bin/sh
# diff.sh SEED EVENTS [all|lane1|PHASE] [FCAPSCTL] [ONLY]: run the
# differential's workload through both paths on the patched kernel and
# write everything to the disk /dev/vdb for the host to compare
# (tests/diff/run). all: the phases below, one after another; lane1: the
# two swap runs, a lane as long as norec and shadow run one after the
# other in guests of their own; a PHASE's name, that phase alone.
#   shadow  kernel rules on, BPF in shadow mode, one run; both decision
#           maps dumped with bpftool
#   swap    once with the kernel enforcing and BPF unloaded, once with the
#           kernel's rules off and BPF enforcing, and once more so with
#           --record none (norec)
# ONLY names one event: the workload replays just that one (--only).
# FCAPS_DRAIN_EVERY=N (tests/diff/run, a run longer than a ring holds): the
# workload empties the rings after every N random events, appending to the
# same dumps; each drainer's pid, the event it followed and its record
# count go to the dump's pid file (ring_drain.h).
# After each phase with BPF loaded: the counters map, `fcapsctl status
# --json` and `bpftool map show` of both decision maps (max_entries), so the
# host can refuse a run in which a record was lost or evicted; and the pid
# of each process that dumped a decision map, whose own exec is recorded.
set -e
seed=$1 events=$2 which=${3:-all} ctl=${4:-fcapsctl} only=${5:-}
mkdir -p /out
mount -t ext4 /dev/vda /mnt
mount -t ext4 /dev/vdb /out
wl() {
	if [ -n "$only" ]; then
		fcaps_workload --seed "$seed" --events "$events" --only "$only" "$@"
	else
		fcaps_workload --seed "$seed" --events "$events" "$@"
	fi
}
# Fewer reused pids (tinyconfig's default is 4096); events are delimited
# by markers anyway (fcaps_workload's event_begin).
sysctl -qw kernel.pid_max=32768
pin=/sys/fs/bpf/fcaps
# dump MAP FILE PIDFILE: the dumper's pid is that of its exec record (the
# rings hold FCAPS_MAX_DECISIONS slots: bpftool would print the free ones);
# after the drains, if any
dump() {
	$ctl decisions --json --map "$1" >> "/out/$2" &
	echo $! >> "/out/$3"
	wait $!
}
# drain MAP FILE PIDFILE ...: the workload's options to drain those maps
drain() {
	[ -n "${FCAPS_DRAIN_EVERY:-}" ] || return 0
	printf '%s %s %s %s' --drain-every "$FCAPS_DRAIN_EVERY" --drain-ctl "$ctl"
	while [ $# -ge 3 ]; do
		printf ' %s %s:/out/%s:/out/%s' --drain "$1" "$2" "$3"
		shift 3
	done
}
# bookkeeping PHASE: counters, status and map sizes after a phase
bookkeeping() {
	bpftool -j map dump pinned "$pin/counters" > "/out/$1-counters.json"
	$ctl status --json > "/out/$1-status.json"
	{
		printf '{"decisions":'
		bpftool -j map show pinned "$pin/decisions"
		printf ',"kdecisions":'
		bpftool -j map show pinned "$pin/kdecisions"
		printf '}\n'
	} > "/out/$1-maps.json"
}
t0=$(date +%s)
# step NAME: when each step ended, from the guest's uptime (profile.py)
step() { echo "$(cut -d' ' -f1 /proc/uptime) $1" >> "/out/steps-$which.txt"; }
step start

phase_shadow() {
	sysctl -qw kernel.fcaps.exec=1 kernel.fcaps.kill=1 kernel.fcaps.nosuid_ignore=0
	# The policy follows the values the workload writes as it sets up.
	$ctl load --mode shadow --record all --kernel-records --scan /mnt
	step "shadow load"
	wl --path both $(drain decisions shadow-bpf.json shadow-bpfdump.pid \
		kdecisions shadow-kernel.json shadow-kdump.pid) > /out/shadow-events.jsonl
	step "shadow workload"
	dump decisions shadow-bpf.json shadow-bpfdump.pid
	dump kdecisions shadow-kernel.json shadow-kdump.pid
	step "shadow dumps"
	bookkeeping shadow
	unload_unless_last shadow
	step "shadow bookkeeping, unload"
}
phase_kernel() {
	sysctl -qw kernel.fcaps.exec=1 kernel.fcaps.kill=1 kernel.fcaps.nosuid_ignore=0
	wl --path kernel > /out/swap-kernel.jsonl
	step "kernel workload"
}
phase_enforce() {
	sysctl -qw kernel.fcaps.exec=0 kernel.fcaps.kill=0
	$ctl load --mode enforce --record all --scan /mnt
	step "enforce load"
	# FCAPS_HANG (tests/diff/run --hang): one event hangs on this path
	wl --path bpf ${FCAPS_HANG:+--hang "$FCAPS_HANG"} \
		$(drain decisions swap-bpf.json swap-bpfdump.pid) > /out/swap-bpf.jsonl
	step "enforce workload"
	dump decisions swap-bpf.json swap-bpfdump.pid
	bookkeeping swap
	unload_unless_last enforce
	step "enforce dump, bookkeeping, unload"
}
# the same with --record none: the rule alone (fcaps_*_norec), which must
# do exactly what the recording programs did (the workload leaves the
# kernel's switches at their defaults)
phase_norec() {
	sysctl -qw kernel.fcaps.exec=0 kernel.fcaps.kill=0
	$ctl load --mode enforce --record none --scan /mnt
	step "norec load"
	wl --path bpf > /out/swap-norec.jsonl
	step "norec workload"
	unload_unless_last norec
}
# The last phase stays loaded: the guest ends there. An unload waits about
# 5 s for the trampolines to go, inside the links' unlinks; the unloads
# of the phases before it test that.
unload_unless_last() { [ "$1" = "${phases##* }" ] || $ctl unload; }
case "$which" in
all) phases="kernel shadow enforce norec";;
lane1) phases="kernel enforce";;
shadow|kernel|enforce|norec) phases=$which;;
*) echo "diff.sh: which is all, lane1, shadow, kernel, enforce or norec, not '$which'" >&2
   exit 2;;
esac
shadow_s=0 swap_s=0
for p in $phases; do
	s=$(date +%s)
	phase_$p
	if [ "$p" = shadow ]; then
		shadow_s=$(($(date +%s) - s))
	else
		swap_s=$((swap_s + $(date +%s) - s))
	fi
done
t2=$(date +%s)
esc() { sed 's/\\/\\\\/g; s/"/\\"/g' | tr -d '\n'; }
cmdline=$(esc < /proc/cmdline)
release=$(uname -r | esc)
echo "{\"seed\":$seed,\"events\":$events,\"which\":\"$which\",\"fcapsctl\":\"$ctl\",\"cmdline\":\"$cmdline\",\"release\":\"$release\",\"shadow_s\":$shadow_s,\"swap_s\":$swap_s}" > /out/run.json
umount /out
echo "diff.sh: done in $((t2 - t0)) s"
