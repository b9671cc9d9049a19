#!/bin/sh
# stress.sh [SECONDS [SEED]]: the stress of issue #12 on the patched kernel,
# its rules on, BPF loaded in shadow mode recording every decision.
# fcaps_stress runs the workload (execs of capped and plain files, signals
# and renices between processes of several uids and capability sets, values
# rewritten, policy edited, mode flipped) and then joins the decision
# records with its log; this script adds the kernel log and the policy map
# against a fresh scan. Ends "N passed, N failed".
. /fcaps/tests/lib.sh
secs=${1:-60} seed=${2:-1}
D=/tmp/stress
LOG=/tmp/stress.log

# Records are joined with the workload by pid: fcaps_stress starts no more
# events than pids are left before pid_max (4096 by default here) wraps.
echo 32768 > /proc/sys/kernel/pid_max
sysctl -qw kernel.fcaps.exec=1
sysctl -qw kernel.fcaps.kill=1
check_out "kernel rules on: kernel.fcaps.exec=1 kill=1" "1 1" \
	sh -c 'echo $(cat /proc/sys/kernel/fcaps/exec /proc/sys/kernel/fcaps/kill)'

# r*: values rewritten during the run; e*: policy entries deleted and
# re-added; u0: no value (fcaps_stress reads back what these are)
mkdir -p $D
for f in r0 r1 e0 e1 u0; do cp /usr/local/bin/fcaps_probe $D/$f; done
check "fcapsctl setcap of r0 r1 e0 e1" sh -c "
	fcapsctl setcap $D/r0 'cap_net_raw+ep' && fcapsctl setcap $D/r1 'cap_kill+ep' &&
	fcapsctl setcap $D/e0 'cap_net_raw+p' --format v3 &&
	fcapsctl setcap $D/e1 'cap_kill,cap_net_raw+ep'"
check "fcapsctl load --mode shadow --record all --kernel-records --scan $D" \
	fcapsctl load --mode shadow --record all --kernel-records --scan $D

echo "stress: $secs s, seed $seed"
if fcaps_stress run $D "$secs" $LOG "$seed"; then
	pass "fcaps_stress run"
else
	fail "fcaps_stress run"
fi
fcapsctl status --json > /tmp/status.json
suite sh -c "fcapsctl decisions --json | fcaps_stress check $LOG /tmp/status.json"

# The map the sync programs and the policy edits left must be what a
# fresh scan of the same files gives.
fcapsctl policy list --json | sort > /tmp/policy.live
fcapsctl unload > /dev/null
fcapsctl load --mode shadow --scan $D > /dev/null
fcapsctl policy list --json | sort > /tmp/policy.scan
fcapsctl unload > /dev/null
if [ -s /tmp/policy.scan ] && cmp -s /tmp/policy.live /tmp/policy.scan; then
	pass "policy map after the run equals a fresh scan of $D ($(wc -l < /tmp/policy.scan) entries)"
else
	fail "policy map after the run differs from a fresh scan of $D (- live, + scan)"
	diff /tmp/policy.live /tmp/policy.scan | sed 's/^/  | /'
fi

hits=$(dmesg | grep -E 'BUG|WARNING|refcount|lockdep')
if [ -z "$hits" ]; then
	pass "guest dmesg shows no BUG, WARNING, refcount or lockdep line"
else
	fail "guest dmesg:"
	echo "$hits" | head -n 20 | sed 's/^/  | /'
fi
finish
