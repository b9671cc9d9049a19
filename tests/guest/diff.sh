#!/bin/sh
# diff.sh SEED EVENTS [shadow|all] [FCAPSCTL] [ONLY]: run the differential's
# workload through both paths on the patched kernel and write everything to
# the disk /dev/vdb for the host to compare (tests/diff/run).
#   shadow  kernel rules on, BPF in shadow mode, one run; both decision
#           maps dumped with bpftool
#   swap    once with the kernel enforcing and BPF unloaded, once with the
#           kernel's rules off and BPF enforcing, and once more so with
#           --record none (norec)
# ONLY names one event: the workload replays just that one (--only).
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
# rings hold FCAPS_MAX_DECISIONS slots: bpftool would print the free ones)
dump() {
	$ctl decisions --json --map "$1" > "/out/$2" &
	echo $! > "/out/$3"
	wait $!
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

sysctl -qw kernel.fcaps.exec=1 kernel.fcaps.kill=1 kernel.fcaps.nosuid_ignore=0
# The policy follows the values the workload writes as it sets up.
$ctl load --mode shadow --record all --kernel-records --scan /mnt
wl --path both > /out/shadow-events.jsonl
dump decisions shadow-bpf.json shadow-bpfdump.pid
dump kdecisions shadow-kernel.json shadow-kdump.pid
bookkeeping shadow
$ctl unload
t1=$(date +%s)

if [ "$which" = all ]; then
	wl --path kernel > /out/swap-kernel.jsonl
	sysctl -qw kernel.fcaps.exec=0 kernel.fcaps.kill=0
	$ctl load --mode enforce --record all --scan /mnt
	# FCAPS_HANG (tests/diff/run --hang): one event hangs on this path
	wl --path bpf ${FCAPS_HANG:+--hang "$FCAPS_HANG"} > /out/swap-bpf.jsonl
	dump decisions swap-bpf.json swap-bpfdump.pid
	bookkeeping swap
	$ctl unload
	# the same with --record none: the rule alone (fcaps_*_norec), which
	# must do exactly what the recording programs did (the workload leaves
	# the kernel's switches at their defaults)
	sysctl -qw kernel.fcaps.exec=0 kernel.fcaps.kill=0
	$ctl load --mode enforce --record none --scan /mnt
	wl --path bpf > /out/swap-norec.jsonl
	$ctl unload
	sysctl -qw kernel.fcaps.exec=1 kernel.fcaps.kill=1
fi
t2=$(date +%s)
esc() { sed 's/\\/\\\\/g; s/"/\\"/g' | tr -d '\n'; }
cmdline=$(esc < /proc/cmdline)
release=$(uname -r | esc)
echo "{\"seed\":$seed,\"events\":$events,\"which\":\"$which\",\"fcapsctl\":\"$ctl\",\"cmdline\":\"$cmdline\",\"release\":\"$release\",\"shadow_s\":$((t1 - t0)),\"swap_s\":$((t2 - t1))}" > /out/run.json
umount /out
echo "diff.sh: done in $((t2 - t0)) s"
