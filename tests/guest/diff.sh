#!/bin/sh
# diff.sh SEED EVENTS [shadow|all] [FCAPSCTL]: run the differential's
# workload through both paths on the patched kernel and write everything to
# the disk /dev/vdb for the host to compare (tests/diff/run).
#   shadow  kernel rules on, BPF in shadow mode, one run; both decision
#           maps dumped with bpftool
#   swap    once with the kernel enforcing and BPF unloaded, once with the
#           kernel's rules off and BPF enforcing
set -e
seed=$1 events=$2 which=${3:-all} ctl=${4:-fcapsctl}
mkdir -p /out
mount -t ext4 /dev/vda /mnt
mount -t ext4 /dev/vdb /out
wl="fcaps_workload --seed $seed --events $events"
# Fewer reused pids (tinyconfig's default is 4096); events are delimited
# by markers anyway (fcaps_workload's event_begin).
sysctl -qw kernel.pid_max=32768
dump() { bpftool -j map dump pinned /sys/fs/bpf/fcaps/$1 > /out/$2; }
t0=$(date +%s)

sysctl -qw kernel.fcaps.exec=1 kernel.fcaps.kill=1 kernel.fcaps.nosuid_ignore=0
# The policy follows the values the workload writes as it sets up.
$ctl load --mode shadow --scan /mnt
$wl --path both > /out/shadow-events.jsonl
dump decisions shadow-bpf.json
dump kdecisions shadow-kernel.json
$ctl unload
t1=$(date +%s)

if [ "$which" = all ]; then
	$wl --path kernel > /out/swap-kernel.jsonl
	sysctl -qw kernel.fcaps.exec=0 kernel.fcaps.kill=0
	$ctl load --mode enforce --scan /mnt
	$wl --path bpf > /out/swap-bpf.jsonl
	dump decisions swap-bpf.json
	$ctl unload
	sysctl -qw kernel.fcaps.exec=1 kernel.fcaps.kill=1
fi
t2=$(date +%s)
echo "{\"seed\":$seed,\"events\":$events,\"which\":\"$which\",\"fcapsctl\":\"$ctl\",\"shadow_s\":$((t1 - t0)),\"swap_s\":$((t2 - t1))}" > /out/run.json
umount /out
echo "diff.sh: done in $((t2 - t0)) s"
