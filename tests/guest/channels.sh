#!/bin/sh
# channels.sh kernel|bpf: SEMANTICS 3's other ways to signal follow the kill
# rule: prlimit(2) writing another process's limits, and SIGIO aimed with
# F_SETOWN. The target holds a capability its uid 1000 sender lacks.
#   kernel  patched kernel, its rules on: uid 1000 runs a legacy-capped file
#   bpf     stock kernel, BPF enforcing: uid 1000 runs a 6.1 v2 file (the
#           capability is 6.1's to grant; BPF decides the rule)
. /fcaps/tests/lib.sh
mode=$1
H=/tmp/ch
mkdir -p $H
T=/usr/local/bin/fcaps_tamper
cp /usr/local/bin/fcaps_probe $H/target
case "$mode" in
kernel) fcapsctl setcap $H/target 'cap_net_raw+ep'; sw=kernel.fcaps.kill ;;
bpf)	setfattr -n security.capability -v 0x0100000200200000000000000000000000000000 $H/target
	sw= ;;
*) echo "usage: channels.sh kernel|bpf" >&2; exit 2 ;;
esac
kill_switch() { if [ -n "$sw" ]; then sysctl -qw $sw=$1; else fcapsctl set kill=$1; fi; }

# start TARGET as uid 1000, leading a session and group of its own; its
# pid in $t
start() { runas 1000 $1 --setsid pause > /dev/null & t=$!; sleep 0.3; }
stop() { kill -9 $t 2>/dev/null; wait $t 2>/dev/null; }

# SIGKILL aimed with F_SETOWN before BPF was loaded, raised after: BPF
# never saw the owner set and takes the pipe's opener (who aimed it) for
# it, not the writer. late_sigio [runas 1000] [WRITER_UID]: who aims it
# (with $TP, that copy of fcaps_tamper)
late_sigio() {
	start $H/target
	rm -f $H/go $H/late.out
	if [ "$1" = runas ]; then
		runas "$2" ${TP:-$T} sigio-late $t 9 $H/go $3 > $H/late.out &
	else
		${TP:-$T} sigio-late $t 9 $H/go $1 > $H/late.out &
	fi
	l=$!
	if ! wait_line aimed $H/late.out; then
		echo "never aimed"
	elif ! fcapsctl load --mode enforce > /dev/null; then
		echo "load failed"
	else
		touch $H/go
		wait $l
		sed -n '/^sigio-late: /p' $H/late.out
		fcapsctl unload > /dev/null
	fi
	kill $l 2>/dev/null
	stop
}

if [ "$mode" = bpf ]; then
	check_out "uid 1000 aimed SIGKILL at it before the load, writes after: dropped" \
		"sigio-late: dropped" late_sigio runas 1000
	check_out "root aimed it before the load, writes after: delivered (root's pP holds the target's)" \
		"sigio-late: delivered" late_sigio
	check_out "root aimed it before the load, a uid 1000 child writes after: delivered (the opener is the sender, not the writer)" \
		"sigio-late: delivered" late_sigio 1000
	# the opener's sets as they are: pP and pE apart (a 6.1 v2 value
	# without the effective flag gives uid 1000 cap_net_raw in pP alone)
	cp $T $H/tamper_p
	setfattr -n security.capability -v 0x0000000200200000000000000000000000000000 $H/tamper_p
	TP=$H/tamper_p check_out "uid 1000 with cap_net_raw in pP alone aimed it before the load: delivered (its pP holds the target's)" \
		"sigio-late: delivered" late_sigio runas 1000
	unset TP
	fcapsctl load --mode enforce > /dev/null
fi

start $H/target
check_out "the target holds cap_net_raw" "0x2000" sh -c "grep CapPrm /proc/$t/status | sed 's/.*\t0*/0x/'"
check_out "uid 1000 cannot kill it (the rule)" "-1" sh -c "runas 1000 /usr/local/bin/fcaps_probe kill $t 9 | sed -n 's/^kill=\([-0-9]*\).*/\1/p'"
# a rule that spared one signal number or one way to send it
check_out "uid 1000 sends it each signal 1-64 by kill, tgkill, sigqueue and pidfd: all EPERM" \
	"signals: EPERM" runas 1000 $T signals $t
check_out "uid 1000 lowers its RLIMIT_NOFILE: EPERM" "prlimit: EPERM" runas 1000 $T prlimit $t
check_out "uid 1000 reads its limits: allowed" "prlimit-read: ok" runas 1000 $T prlimit-read $t
check_out "uid 1000 lowers it and reads the old limit in one call (a write and a read): EPERM" \
	"prlimit-rw: EPERM" runas 1000 $T prlimit-rw $t
check_out "uid 1000 aims SIGKILL at it with F_SETOWN: dropped" "sigio: dropped" runas 1000 $T sigio $t 9
for k in tid pid pgrp; do
	check_out "... with F_SETOWN_EX, F_OWNER_$(echo $k | tr a-z A-Z): dropped" "sigio-ex: dropped" \
		runas 1000 $T sigio-ex $t 9 $k
done
# the sender is the owner at the last F_SETOWN, not the writer nor the opener
check_out "root aims it, then a uid 1000 child aims it again; root writes: dropped" \
	"sigio-owner: dropped" $T sigio-owner $t 9 1000
check_out "root aims it; a uid 1000 child writes: delivered (root holds CAP_KILL)" \
	"sigio-writer: delivered" $T sigio-writer $t 9 1000
# the owner's namespace is freed in free_user_ns()'s loop while its file
# lives, and the target's new namespace takes its address (BPF keeps the
# owner's namespace as a number: a stale one would give it CAP_KILL there)
check_out "a namespace's root aims SIGKILL at a process of a later namespace at its freed address: dropped" \
	"sigio-nsreuse: dropped" $T sigio-nsreuse
stop
# the owner's credentials (and its namespace) go with the next owner or
# the file: 24 namespaces under a limit of 8, each gone with its pipe
max=$(cat /proc/sys/user/max_user_namespaces)
echo 8 > /proc/sys/user/max_user_namespaces
check_out "uid 1000 makes 24 namespaces, each aiming a pipe's SIGIO twice, under a limit of 8: each freed" \
	"fowner-leak: ok" runas 1000 $T fowner-leak 24
echo $max > /proc/sys/user/max_user_namespaces
start /usr/local/bin/fcaps_probe
check_out "an uncapped uid 1000 target: prlimit allowed" "prlimit: ok" runas 1000 $T prlimit $t
check_out "... in one call with the read as well" "prlimit-rw: ok" runas 1000 $T prlimit-rw $t
check_out "... and its SIGIO delivered" "sigio: delivered" runas 1000 $T sigio $t 9
stop
# a "dropped" above means something only if the same aim delivers here
ex_delivered() {
	for k in tid pid pgrp; do
		start $1
		check_out "$2, F_SETOWN_EX (F_OWNER_$(echo $k | tr a-z A-Z)): SIGKILL delivered" \
			"sigio-ex: delivered" runas 1000 $T sigio-ex $t 9 $k
		stop
	done
}
ex_delivered /usr/local/bin/fcaps_probe "an uncapped target"
kill_switch 0
start $H/target
check_out "kill=0: prlimit allowed" "prlimit: ok" runas 1000 $T prlimit $t
check_out "kill=0: SIGIO delivered" "sigio: delivered" runas 1000 $T sigio $t 9
stop
check_out "kill=0: a namespace's root's SIGKILL at a later namespace's process: delivered" \
	"sigio-nsreuse: delivered" $T sigio-nsreuse
ex_delivered $H/target "kill=0, the capped target"
kill_switch 1
if [ "$mode" = bpf ]; then
	# sigio_owners full: an owner that does not fit is unknown, and an
	# unknown owner signals nobody (fail closed), rather than pass for the
	# file's opener (root here)
	fmax=$(cat /proc/sys/fs/file-max)
	echo 262144 > /proc/sys/fs/file-max
	$T sigio-flood 65536 > $H/flood.out & f=$!
	for i in $(seq 240); do grep -q "sigio-flood: ok" $H/flood.out && break; sleep 0.5; done
	start /usr/local/bin/fcaps_probe
	check_out "sigio_owners full: root's SIGKILL aimed after at an uncapped uid 1000 process: dropped (fail closed)" \
		"sigio: dropped" $T sigio $t 9
	stop
	kill $f; wait $f 2>/dev/null
	echo $fmax > /proc/sys/fs/file-max
	fcapsctl unload >/dev/null
fi
finish
