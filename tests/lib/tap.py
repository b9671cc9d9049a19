"""TAP 13 for the Python tests, as tests/lib/tap.sh and tap.h are for the
shell and C ones: "ok N - name" or "not ok N - name", diagnostics as "# "
lines, and at the end the plan and "N passed, N failed, N skipped", which
tests/run adds up. FCAPS_TEST_FILTER=GLOB and FCAPS_TEST_LIST=1 as there.
"""
import fnmatch
import os

_n = _passed = _failed = _skipped = 0
_head = False


def selected(name):
    """Whether check NAME runs (FCAPS_TEST_LIST prints it instead)."""
    glob = os.environ.get("FCAPS_TEST_FILTER")
    if glob and not fnmatch.fnmatchcase(name, glob):
        return False
    if os.environ.get("FCAPS_TEST_LIST"):
        print("check: %s" % name)
        return False
    return True


def _line(status, name):
    global _n, _head
    if not _head:
        print("TAP version 13")
        _head = True
    _n += 1
    print("%s %d - %s" % (status, _n, name), flush=True)


def result(ok, name, diagnostics=()):
    global _passed, _failed
    _line("ok" if ok else "not ok", name)
    for d in diagnostics:
        print("# " + d)
    if ok:
        _passed += 1
    else:
        _failed += 1


def skip(name, why):
    global _skipped
    _line("ok", "%s # SKIP %s" % (name, why))
    _skipped += 1


def finish():
    """The plan and the closing line; the exit status."""
    if not _head:
        print("TAP version 13")
    print("1..%d\n%d passed, %d failed, %d skipped" % (_n, _passed, _failed, _skipped))
    return 1 if _failed else 0
