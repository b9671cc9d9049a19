# TAP 13 for the shell test suites (busybox sh in the guest, bash on the
# host), as tests/lib/tap.h is for the C ones: "ok N - name" or "not ok N -
# name" a check, diagnostics as "# " lines, "ok N - name # SKIP why", and
# at the end the plan and "N passed, N failed, N skipped", which tests/run
# adds up.
#
# FCAPS_TEST_FILTER=GLOB runs only the checks whose name matches (the
# others are neither run nor counted; a step, which later checks stand on,
# runs always); FCAPS_TEST_LIST=1 prints each name as "check: NAME" and
# runs no check but the steps.
T_PASS=0
T_FAIL=0
T_SKIP=0
T_N=0
T_HEAD=

_tap_line() {
	[ -n "$T_HEAD" ] || { echo "TAP version 13"; T_HEAD=1; }
	T_N=$((T_N + 1))
	echo "$1 $T_N - $2"
}

# tap_selected NAME: whether check NAME runs (listing prints it instead)
tap_selected() {
	if [ -n "${FCAPS_TEST_FILTER:-}" ]; then
		# shellcheck disable=SC2254
		case "$1" in $FCAPS_TEST_FILTER) ;; *) return 1;; esac
	fi
	if [ -n "${FCAPS_TEST_LIST:-}" ]; then
		echo "check: $1"
		return 1
	fi
	return 0
}

# diag: stdin as diagnostics under the last check
diag() { sed 's/^/# /'; }

pass() { tap_selected "$1" >/dev/null || return 0; _tap_line ok "$1"; T_PASS=$((T_PASS + 1)); }
fail() { tap_selected "$1" >/dev/null || return 0; _tap_line "not ok" "$1"; T_FAIL=$((T_FAIL + 1)); }
skip() { tap_selected "$1" >/dev/null || return 0; _tap_line ok "$1 # SKIP ${2:-}"; T_SKIP=$((T_SKIP + 1)); }

# check NAME CMD...: CMD must exit 0
check() {
	_d=$1; shift
	tap_selected "$_d" || return 0
	if "$@" >/tmp/.check.out 2>&1; then pass "$_d"
	else fail "$_d"; diag < /tmp/.check.out; fi
}

# step NAME CMD...: a check that later checks stand on (a load, a mode
# change): it runs whatever the filter, is counted when selected, and its
# failure is reported even when not
step() {
	_d=$1; shift
	if "$@" >/tmp/.check.out 2>&1; then pass "$_d"
	else
		FCAPS_TEST_FILTER='' FCAPS_TEST_LIST='' fail "$_d (a step)"
		diag < /tmp/.check.out
	fi
}

# check_out NAME EXPECTED CMD...: CMD's combined output must equal EXPECTED
check_out() {
	_d=$1 _want=$2; shift 2
	tap_selected "$_d" || return 0
	_got=$("$@" 2>&1)
	if [ "$_got" = "$_want" ]; then pass "$_d"
	else fail "$_d"; printf 'want: %s\ngot:  %s\n' "$_want" "$_got" | diag; fi
}

# check_contains NAME NEEDLE TEXT: TEXT must contain NEEDLE
check_contains() {
	tap_selected "$1" || return 0
	case "$3" in
	*"$2"*) pass "$1";;
	*) fail "$1"; { echo "want to contain: $2"; echo "$3" | sed 's/^/got: /'; } | diag;;
	esac
}

# suite CMD...: run a TAP program as a subtest (its lines indented) and add
# its counts to ours
suite() {
	"$@" >/tmp/.suite.out 2>&1
	_rc=$?
	sed 's/^/    /' /tmp/.suite.out
	_line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' /tmp/.suite.out | tail -n 1)
	if [ -z "$_line" ]; then
		fail "$* ended without a result line (status $_rc)"
		return 0
	fi
	_p=${_line%% passed*}
	_f=${_line#*, }; _f=${_f%% failed*}
	_s=0
	case "$_line" in *skipped*) _s=${_line##*, }; _s=${_s%% skipped};; esac
	T_PASS=$((T_PASS + _p)); T_FAIL=$((T_FAIL + _f)); T_SKIP=$((T_SKIP + _s))
	[ "$_rc" -ne 0 ] && [ "$_f" -eq 0 ] && fail "$* exited $_rc with no failure counted"
	return 0
}

finish() {
	[ -n "$T_HEAD" ] || echo "TAP version 13"
	echo "1..$T_N"
	echo "$T_PASS passed, $T_FAIL failed, $T_SKIP skipped"
	[ "$T_FAIL" -eq 0 ]
}
