#!/bin/sh
# bench.sh: the guest side of `make bench` (tests/bench/run boots the
# patched kernel once with the test image as /dev/vda and a results disk
# as /dev/vdb). Interleaved rounds; each round sets up every mode once, in
# a fixed order, runs every benchmark of that mode and tears it down:
#   off            kernel.fcaps.exec=0 kill=0, no BPF
#   kernel         kernel rules on, no BPF
#   floor          empty BPF programs on fcaps' hooks (floor), switches 0
#   enforce-norec  fcapsctl load --mode enforce --record none, switches 0
#   enforce-rec    fcapsctl load --mode enforce --record all, switches 0
#   shadow         fcapsctl load --mode shadow --record all, rules on
#   shadow-join    the same with --kernel-records: the kernel's own records
#                  too, joined to BPF's (what the differential runs)
# Every batch drains the decision rings as it goes, the clock stopped
# (fcaps_bench --drain), so that a recording mode records every operation
# rather than meeting a full ring after 65,536 of them.
# Writes /out/results.jsonl (one JSON line per measurement: mode, round,
# batch, what, value, unit; or a skip or an error with its reason),
# /out/info.json, /out/log.txt and each mode's `fcapsctl status --json`.
# Knobs (environment): BENCH_ROUNDS (3), BENCH_SCALE (1: multiplies every
# calibrated batch), BENCH_BATCHES (3 a benchmark, mode and round),
# BENCH_TARGET (0.5 s a batch, calibrated in mode off), BENCH_MAX_BATCH
# (2 x BENCH_TARGET: a batch of a slower mode ends there), BENCH_TREE_FILES
# (100000), BENCH_IMPORT_TIMEOUT (60 s), BENCH_DIFF_EVENTS (200),
# BENCH_MODES, BENCH_MICRO, BENCH_POLICY_SIZES (subsets, for trials),
# BENCH_RATES (1: scan, import and diff_eps; 0 skips them), BENCH_CLOCK
# (what the host booted the guest with, for the report: wall or icount).
# Exit: 0 when everything was measured (skips with a reason included),
# 1 when something broke (a mode that did not load, a benchmark that failed).
set -u
ROUNDS=${BENCH_ROUNDS:-3}
SCALE=${BENCH_SCALE:-1}
BATCHES=${BENCH_BATCHES:-3}
TARGET=${BENCH_TARGET:-0.5}
MAX_BATCH=${BENCH_MAX_BATCH:-$(awk -v t="$TARGET" 'BEGIN { print 2 * t }')}
TREE_FILES=${BENCH_TREE_FILES:-100000}
IMPORT_TIMEOUT=${BENCH_IMPORT_TIMEOUT:-60}
DIFF_EVENTS=${BENCH_DIFF_EVENTS:-200}
MODES=${BENCH_MODES:-off kernel floor enforce-norec enforce-rec shadow shadow-join}
MICRO=${BENCH_MICRO:-exec_plain exec_v1 kill0 kill0_capped sigdeliver tgkill setprio rw openclose capable_loop capable_ceiling}
POLICY_SIZES=${BENCH_POLICY_SIZES-1 10000 1000000}
RATES=${BENCH_RATES:-1}
B=/tmp/bench
PIN=/sys/fs/bpf/fcaps

out=/out
mkdir -p $out
if [ -b /dev/vdb ]; then
	mount -t ext4 /dev/vdb $out || { echo "bench.sh: cannot mount /dev/vdb on $out"; exit 1; }
	# whatever ends the run, what it wrote reaches the disk
	trap 'cd /; umount $out 2>/dev/null' EXIT
else
	echo "bench.sh: no results disk (/dev/vdb): results stay in $out and are printed"
fi
res=$out/results.jsonl
log=$out/log.txt
: > "$res"
: > "$log"
broken=0
t_start=$(date +%s)

say() { echo "[$(( $(date +%s) - t_start ))s] $*" | tee -a "$log"; }
esc() { printf '%s' "$*" | sed 's/\\/\\\\/g; s/"/\\"/g' | tr '\n\t' '  '; }
# record MODE ROUND WHAT REST: one JSON line; REST is the rest of the object
record() { printf '{"mode":"%s","round":%s,"what":"%s",%s}\n' "$1" "$2" "$3" "$4" >> "$res"; }
skip() { say "skip: $1 round $2 $3: $4"; record "$1" "$2" "$3" "\"skipped\":\"$(esc "$4")\""; }
error() {
	say "ERROR: $1 round $2 $3: $4"
	record "$1" "$2" "$3" "\"error\":\"$(esc "$4")\""
	broken=1
}
# field NAME LINE: the value of NAME= in a fcaps_bench output line
field() { printf '%s\n' "$2" | sed -n "s/.*[[:space:]]$1=\([^[:space:]]*\).*/\1/p; s/^$1=\([^[:space:]]*\).*/\1/p" | head -n 1; }

# ---- setup: files, tree, calibration ----
say "bench: $(uname -r), rounds=$ROUNDS scale=$SCALE batches=$BATCHES target=${TARGET}s"
mkdir -p $B/bin
fcaps_bench mkexit $B/bin/plain && cp $B/bin/plain $B/bin/v1 &&
	fcapsctl setcap $B/bin/v1 'cap_net_raw+ep' >> "$log" 2>&1 || {
	say "bench: cannot create the exec targets under $B/bin"; exit 1; }
fcapsctl getcap $B/bin/v1 >> "$log" 2>&1
# capable_ceiling: root running a capped copy carries a ceiling under BPF
cp "$(command -v fcaps_bench)" $B/bin/bench_capped &&
	fcapsctl setcap $B/bin/bench_capped 'cap_sys_admin+ep' >> "$log" 2>&1 || {
	say "bench: cannot create $B/bin/bench_capped"; exit 1; }
if mount -t ext4 /dev/vda /mnt 2>> "$log"; then have_img=1; else have_img=0; fi
say "bench: creating $TREE_FILES files under $B/tree (1% with a v1 value)"
fcaps_bench mktree $B/tree "$TREE_FILES" $B/import.txt >> "$log" 2>&1 || {
	say "bench: cannot create the scan tree"; exit 1; }
head -n 10000 $B/import.txt > $B/import10k.txt
fcapsctl getcap $B/tree/d0000/f0000000 >> "$log" 2>&1

esc_file() { esc "$(cat "$1" 2>/dev/null)"; }
{
	printf '{"release":"%s","cmdline":"%s",' "$(esc "$(uname -r)")" "$(esc_file /proc/cmdline)"
	printf '"lsm":"%s","nproc":%s,' "$(esc_file /sys/kernel/security/lsm)" "$(nproc)"
	printf '"mem_kb":%s,' "$(sed -n 's/^MemTotal: *\([0-9]*\).*/\1/p' /proc/meminfo)"
	printf '"cpu":"%s",' "$(esc "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)")"
	printf '"rounds":%s,"scale":"%s","batches":%s,"target_s":"%s","max_batch_s":"%s",' \
		"$ROUNDS" "$SCALE" "$BATCHES" "$TARGET" "$MAX_BATCH"
	printf '"tree_files":%s,"diff_events":%s,"import_timeout_s":%s,' "$TREE_FILES" "$DIFF_EVENTS" "$IMPORT_TIMEOUT"
	printf '"modes":"%s","micro":"%s","policy_sizes":"%s",' "$MODES" "$MICRO" "$POLICY_SIZES"
	printf '"rates":%s,"clock":"%s"}\n' "$RATES" "${BENCH_CLOCK:-wall}"
} > $out/info.json

switches() { sysctl -qw kernel.fcaps.exec="$1" kernel.fcaps.kill="$1"; }
file_of() {
	case $1 in
	exec_plain) echo $B/bin/plain;;
	exec_v1) echo $B/bin/v1;;
	esac
}
# what_of LABEL: the fcaps_bench benchmark a label runs; bin_of: by which copy
what_of() { case $1 in capable_ceiling) echo capable_loop;; kill0_capped) echo kill0;; *) echo "$1";; esac; }
bin_of() { case $1 in capable_ceiling|kill0_capped) echo $B/bin/bench_capped;; *) echo fcaps_bench;; esac; }

# Warm-up: an exec costs 17% fewer instructions after the first
# `fcapsctl status` of a boot, in every mode and for good (not understood;
# docs/benchmark.md), so each mode is measured after one.
{ fcapsctl load --mode shadow && fcapsctl status --json && fcapsctl unload &&
  floor load && floor unload; } >> "$log" 2>&1 || { say "bench: the warm-up load failed"; exit 1; }

# Batch sizes: calibrated once, with the kernel rules off and no BPF.
switches 0
# exec_policy_N and the profile run exec_v1 batches whatever MICRO says
for w in $({ for m in $MICRO; do what_of "$m"; done; echo exec_v1; } | sort -u); do
	n=$(fcaps_bench calibrate "$TARGET" "$w" $(file_of "$w") 2>> "$log") || {
		say "bench: calibrating $w failed"; exit 1; }
	n=$(awk -v n="$n" -v s="$SCALE" 'BEGIN { m = int(n * s); print m < 1 ? 1 : m }')
	eval "ITERS_$w=$n"
	say "calibrated: $w $n a batch"
done

# ---- modes ----
mode_up() {
	case $1 in
	off) switches 0;;
	kernel) switches 1;;
	floor) switches 0 && floor load;;
	enforce-norec) switches 0 && fcapsctl load --mode enforce --record none --scan $B/bin;;
	enforce-rec) switches 0 && fcapsctl load --mode enforce --record all --scan $B/bin;;
	shadow) switches 1 && fcapsctl load --mode shadow --record all --scan $B/bin;;
	shadow-join) switches 1 &&
		fcapsctl load --mode shadow --record all --kernel-records --scan $B/bin;;
	*) echo "unknown mode $1"; return 1;;
	esac
}
mode_down() {
	case $1 in
	floor) floor unload;;
	enforce-*|shadow*) fcapsctl unload;;
	esac
}
# What is in place must be what the mode says, nothing left from another.
mode_check() {
	want_sw=1 want_floor=0 want_fcaps=0
	case $1 in off|floor|enforce-*) want_sw=0;; esac
	case $1 in floor) want_floor=1;; enforce-*|shadow*) want_fcaps=1;; esac
	sw="$(cat /proc/sys/kernel/fcaps/exec)$(cat /proc/sys/kernel/fcaps/kill)"
	[ "$sw" = "$want_sw$want_sw" ] || { echo "kernel switches are $sw"; return 1; }
	have_floor=0 have_fcaps=0
	[ -e /sys/fs/bpf/floor ] && have_floor=1
	[ -e $PIN ] && have_fcaps=1
	[ $have_floor = $want_floor ] && [ $have_fcaps = $want_fcaps ] ||
		{ echo "floor loaded: $have_floor, fcaps loaded: $have_fcaps"; return 1; }
}

# profile MODE ROUND: every BPF program's run count and run time over one
# kill0 and one exec_v1 batch (kernel.bpf_stats_enabled costs a clock read
# a run, so it is on only here, after the timed batches)
profile() {
	sysctl -qw kernel.bpf_stats_enabled=1 || return 0
	fcaps_bench --label profile --drain kill0 "${ITERS_kill0:-20000}" >> "$log" 2>&1
	fcaps_bench --label profile --drain exec_v1 "${ITERS_exec_v1:-200}" $B/bin/v1 >> "$log" 2>&1
	sysctl -qw kernel.bpf_stats_enabled=0
	bpftool -j prog show > $out/progs-$1-r$2.json 2>> "$log" ||
		error "$1" "$2" profile "bpftool prog show failed"
}

# micro MODE ROUND LABEL WHAT [FILE]: BATCHES batches of one benchmark
micro() {
	local mode=$1 round=$2 label=$3 what=$4 file=${5:-} iters b line ns
	eval "iters=\$ITERS_$what"
	b=1
	while [ $b -le "$BATCHES" ]; do
		line=$($(bin_of "$label") --label "$label" --max-seconds "$MAX_BATCH" --drain "$what" \
			"$iters" $file 2>> "$log")
		ns=$(field ns_per_op "$line")
		if [ -z "$ns" ]; then
			error "$mode" "$round" "$label" "fcaps_bench $what failed: $line"
			return 1
		fi
		record "$mode" "$round" "$label" "\"batch\":$b,\"value\":$ns,\"unit\":\"ns/op\",\"iters\":$(field iters "$line")"
		echo "$mode r$round $line" >> "$log"
		b=$((b + 1))
	done
	say "$mode r$round: $label $ns ns/op (last batch)"
}

# rate_of MODE ROUND LABEL UNIT [--timeout S] COUNT LOG CMD...: one timed command
rate_of() {
	local mode=$1 round=$2 label=$3 unit=$4 to="" line rc ps extra
	shift 4
	if [ "$1" = --timeout ]; then
		to="--timeout $2"
		shift 2
	fi
	line=$(fcaps_bench rate $to "$label" "$@" 2>> "$log")
	rc=$?
	rate_line=$line
	ps=$(field per_s "$line")
	if [ -z "$ps" ] || { [ $rc != 0 ] && [ $rc != 3 ]; }; then
		error "$mode" "$round" "$label" "failed (status $rc): $line"
		return 1
	fi
	extra=""
	[ $rc = 3 ] && extra=",\"timeout\":true,\"bound\":\"upper\""
	record "$mode" "$round" "$label" "\"batch\":1,\"value\":$ps,\"unit\":\"$unit\",\"count\":$(field count "$line"),\"seconds\":$(field seconds "$line")$extra"
	say "$mode r$round: $line"
	return $rc
}

# exec of the v1 file with the policy map holding N entries
policy_sizes() {
	local mode=$1 round=$2 max n msg rc
	max=$(bpftool -j map show pinned $PIN/policy | sed -n 's/.*"max_entries":\([0-9]*\).*/\1/p')
	# the one entry is exec_v1's: capable_ceiling's copy steps out meanwhile
	fcapsctl policy del $B/bin/bench_capped >> "$log" 2>&1
	say "$mode r$round: policy map max_entries=$max; $(fcaps_bench countpolicy)"
	for n in $POLICY_SIZES; do
		if [ -z "$max" ] || [ "$n" -gt "$max" ]; then
			skip "$mode" "$round" "exec_policy_$n" "the policy map's max_entries is ${max:-unknown}, less than $n"
			continue
		fi
		msg=$(fcaps_bench fillpolicy "$n" 2>&1)
		rc=$?
		echo "$msg" >> "$log"
		case $rc in
		0) micro "$mode" "$round" "exec_policy_$n" exec_v1 $B/bin/v1;;
		3) skip "$mode" "$round" "exec_policy_$n" "${msg#skip: }";;
		*) error "$mode" "$round" "exec_policy_$n" "fillpolicy $n: $msg";;
		esac
	done
	fcaps_bench clearpolicy >> "$log" 2>&1 || error "$mode" "$round" clearpolicy "clearpolicy failed"
	fcapsctl policy add $B/bin/bench_capped 'cap_sys_admin+ep' >> "$log" 2>&1 ||
		error "$mode" "$round" policy "putting bench_capped back failed"
}

import_skip=""
scan_import() {
	local mode=$1 round=$2
	rate_of "$mode" "$round" scan files/s "$TREE_FILES" "$log" -- fcapsctl policy scan $B/tree
	rate_of "$mode" "$round" import_10k lines/s "$(wc -l < $B/import10k.txt)" "$log" -- \
		fcapsctl policy import $B/import10k.txt
	# the whole file, unless even a linear import would not finish in time
	if [ -z "$import_skip" ] && [ -n "$rate_line" ] &&
	   awk -v s="$(field seconds "$rate_line")" -v n="$TREE_FILES" -v t="$IMPORT_TIMEOUT" \
		-v k="$(wc -l < $B/import10k.txt)" \
		'BEGIN { exit !(s * n / k > t) }'; then
		import_skip="import_10k took $(field seconds "$rate_line") s: $TREE_FILES lines would take more than ${IMPORT_TIMEOUT}s even at that rate"
	fi
	if [ -n "$import_skip" ]; then
		skip "$mode" "$round" import "$import_skip"
		return
	fi
	rate_of "$mode" "$round" import lines/s --timeout "$IMPORT_TIMEOUT" "$TREE_FILES" "$log" -- \
		fcapsctl policy import $B/import.txt
	[ $? = 3 ] && import_skip="timed out after ${IMPORT_TIMEOUT}s in round $round (value: an upper bound)"
}

diff_eps() {
	local mode=$1 round=$2
	if [ $have_img = 0 ]; then
		skip "$mode" "$round" diff_eps "no test image on /dev/vda"
		return
	fi
	# as diff.sh loads it: the image's values in the policy
	fcapsctl policy scan /mnt >> "$log" 2>&1
	rate_of "$mode" "$round" diff_eps events/s "$DIFF_EVENTS" $out/workload-r$round.jsonl -- \
		fcaps_workload --path both --seed 1 --events "$DIFF_EVENTS" --no-catalogue
	switches 1
}

round=1
while [ $round -le "$ROUNDS" ]; do
	for mode in $MODES; do
		if ! msg=$(mode_up "$mode" 2>&1); then
			echo "$msg" >> "$log"
			error "$mode" "$round" setup "$(printf '%s\n' "$msg" | tail -n 3)"
			mode_down "$mode" >> "$log" 2>&1
			continue
		fi
		echo "$msg" >> "$log"
		if ! msg=$(mode_check "$mode"); then
			error "$mode" "$round" setup "$msg"
			mode_down "$mode" >> "$log" 2>&1
			continue
		fi
		say "=== round $round, mode $mode"
		case $mode in
		enforce-*|shadow*) fcapsctl status --json > $out/status-$mode-r$round.json 2>> "$log";;
		esac
		for w in $MICRO; do
			micro "$mode" "$round" "$w" "$(what_of "$w")" $(file_of "$w")
		done
		case $mode in floor|enforce-*|shadow*) profile "$mode" "$round";; esac
		case $mode in
		enforce-rec)
			policy_sizes "$mode" "$round"
			[ "$RATES" = 0 ] || scan_import "$mode" "$round";;
		shadow)
			policy_sizes "$mode" "$round";;
		shadow-join)
			[ "$RATES" = 0 ] || diff_eps "$mode" "$round";;
		esac
		case $mode in
		enforce-*|shadow*) fcapsctl status --json > $out/status-$mode-r$round-end.json 2>> "$log";;
		esac
		mode_down "$mode" >> "$log" 2>&1 || error "$mode" "$round" teardown "unloading failed"
	done
	round=$((round + 1))
done
switches 1

t_end=$(date +%s)
printf '{"seconds":%s,"broken":%s}\n' $((t_end - t_start)) $broken > $out/done.json
say "bench: done in $((t_end - t_start)) s, $(wc -l < "$res") results$([ $broken = 1 ] && echo ', SOMETHING BROKE (see above)')"
[ -b /dev/vdb ] || cat "$res"
exit $broken
