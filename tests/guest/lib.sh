# Guest test helpers (busybox sh): the TAP functions (tap.sh: check,
# check_out, check_contains, pass, fail, skip, suite, finish) and what the
# guest suites share.
. /fcaps/tests/tap.sh

as_user() { runas 1000 "$@"; }
# eperm CMD...: CMD reports EPERM ("Operation not permitted")
eperm() { "$@" 2>&1 | grep -q 'Operation not permitted'; }
# wait_line TEXT FILE: until FILE (maybe not there yet) holds the line TEXT
# (2 s at most), as a background probe says it is ready
wait_line() { for i in 1 2 3 4 5 6 7 8 9 10; do grep -qx "$1" "$2" 2>/dev/null && return 0; sleep 0.2; done; return 1; }
