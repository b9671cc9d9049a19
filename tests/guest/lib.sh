# Guest test helpers (busybox sh). Each suite ends with finish, which prints
# "N passed, N failed" and sets the exit status.
T_PASS=0
T_FAIL=0

pass() { echo "PASS: $1"; T_PASS=$((T_PASS + 1)); }
fail() { echo "FAIL: $1"; T_FAIL=$((T_FAIL + 1)); }

# check DESC CMD...: CMD must exit 0.
check() {
	_d=$1; shift
	if "$@" >/tmp/.check.out 2>&1; then pass "$_d"
	else fail "$_d"; sed 's/^/  | /' /tmp/.check.out; fi
}

# check_out DESC EXPECTED CMD...: CMD's combined output must equal EXPECTED.
check_out() {
	_d=$1 _want=$2; shift 2
	_got=$("$@" 2>&1)
	if [ "$_got" = "$_want" ]; then pass "$_d"
	else fail "$_d"; echo "  | want: $_want"; echo "  | got:  $_got"; fi
}

# check_contains DESC NEEDLE TEXT: TEXT must contain NEEDLE.
check_contains() {
	case "$3" in
	*"$2"*) pass "$1";;
	*) fail "$1"; echo "  | want to contain: $2"; echo "$3" | sed 's/^/  | got: /';;
	esac
}

# suite CMD...: run a program that ends with "N passed, N failed"; add its counts.
suite() {
	"$@" >/tmp/.suite.out 2>&1
	_rc=$?
	cat /tmp/.suite.out
	_line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' /tmp/.suite.out | tail -n 1)
	if [ -z "$_line" ]; then
		fail "$* ended without a result line (status $_rc)"
		return
	fi
	_p=${_line%% passed*}
	_f=${_line#*, }; _f=${_f%% failed}
	T_PASS=$((T_PASS + _p)); T_FAIL=$((T_FAIL + _f))
	[ "$_rc" -ne 0 ] && [ "$_f" -eq 0 ] && fail "$* exited $_rc with no failure counted"
	return 0
}

as_user() { runas 1000 "$@"; }
# eperm CMD...: CMD reports EPERM ("Operation not permitted")
eperm() { "$@" 2>&1 | grep -q 'Operation not permitted'; }
# wait_line TEXT FILE: until FILE (maybe not there yet) holds the line TEXT
# (2 s at most), as a background probe says it is ready
wait_line() { for i in 1 2 3 4 5 6 7 8 9 10; do grep -qx "$1" "$2" 2>/dev/null && return 0; sleep 0.2; done; return 1; }

finish() {
	echo "$T_PASS passed, $T_FAIL failed"
	[ "$T_FAIL" -eq 0 ]
}
