"""Which rule of SEMANTICS.md decided each kernel record of the shadow run.

A '0' means only as much as the workload reaches and the comparison looks
at (issue #8): a branch no event reaches is a branch both paths could get
wrong together. The shadow run has every input (the kernel's record and
the event's own choices), so each kernel record is classified into the
branches it went through; the table counts events per branch.
"""
from diffdata import (CHANNEL_HOOKS, EXEC, KILL, MALFORMED as FORM_MALFORMED, SCHED_HOOKS,
                      SECBIT_NOROOT, V1_TAG, V3_TAG, choice, hook_name, last_exec)
from fcaps_abi import EPERM  # noqa: E402
LEGACY_TAGS = (V1_TAG, V3_TAG)
VALUE_PRESENT_FORMS = ("legacy", "malformed")    # the workload's file_form: legacy-tagged

# branch -> what it means (SEMANTICS.md section). Order is the table's.
BRANCHES = {
    "exec/rule-off": "2: a legacy value present, kernel.fcaps.exec=0: ignored as if absent",
    "exec/nosuid-ignored": "2.1: legacy value on a nosuid mount, nosuid_ignore=0: ignored",
    "exec/nosuid-honoured": "2.1: legacy value on a nosuid mount, nosuid_ignore=1: applied",
    "exec/malformed-eperm": "2.2: malformed legacy value: EPERM",
    "exec/legacy-applied": "2.3-2.5: the legacy rules decided the credentials",
    "exec/bset-cuts-fP": "2.5: the bounding set removes part of fP",
    "exec/fI-and-pI-adds": "2.5: fI & pI adds what (fP & bset) lacks",
    "exec/fE-narrows": "2.5: pE' = pP' & fE is smaller than pP'",
    "exec/downgrade": "2.6: unsafe exec, pP' limited to the old pP",
    "exec/at-secure-setid": "2.7: AT_SECURE because the exec is setid",
    "exec/at-secure-fE": "2.7: AT_SECURE because fE is non-empty (uid != 0)",
    "exec/at-secure-fP": "2.7: AT_SECURE because fP is non-empty (uid != 0)",
    "exec/at-secure-fI-only": "2.7: AT_SECURE because fI alone is non-empty (uid != 0)",
    "exec/root-gets-fewer": "2.4: uid or euid 0, the file's sets give less than root's",
    "exec/not-legacy-61": "2: no legacy value decided: 6.1's own rules",
    "exec/setgid": "2.3: the exec changes the egid",
    "exec/noroot": "2.3: SECURE_NOROOT set",
    "kill/subset-allows": "3: same user namespace, target pP subset of sender pP",
    "kill/cap-kill-allows": "3: not a subset, sender has CAP_KILL in the target's namespace",
    "kill/denied": "3: neither: EPERM",
    "kill/other-userns-denied": "3: subset would hold, but another user namespace and no CAP_KILL",
    "kill/kill-off": "5: kernel.fcaps.kill=0",
    "kill/explicit-cred": "3: explicit credentials",
    "prlimit/subset-allows": "3: prlimit write, same user namespace, target pP subset",
    "prlimit/cap-kill-allows": "3: prlimit write, not a subset, CAP_KILL in the target's namespace",
    "prlimit/denied": "3: prlimit write, neither: EPERM",
    "prlimit/other-userns-denied": "3: prlimit write, subset but another user namespace",
    "prlimit/kill-off": "5: prlimit write, kernel.fcaps.kill=0",
    "sigio/subset-allows": "3: SIGIO, same user namespace, target pP subset of the owner's",
    "sigio/cap-kill-allows": "3: SIGIO, not a subset, the owner has CAP_KILL there",
    "sigio/denied": "3: SIGIO, neither: dropped",
    "sigio/other-userns-denied": "3: SIGIO, subset but the owner in another user namespace",
    "sigio/kill-off": "5: SIGIO, kernel.fcaps.kill=0",
    "sched/subset-allows": "4: target pP subset of the caller's",
    "sched/cap-sys-nice-allows": "4: not a subset, caller has CAP_SYS_NICE",
    "sched/denied": "4: neither: EPERM",
}
UNREACHABLE = {
    "kill/explicit-cred": "unreachable in this guest: only USB async I/O sends explicit credentials",
}
MIN_RANDOM, RANDOM_RUN = 20, 5000


def _g(r, f):
    v = r.get(f)
    return v if isinstance(v, int) else 0


def exec_branches(r, ev, main):
    """@main: r is the event's own exec (an exec event's last exec of its pid)."""
    b = set()
    legacy, ret = _g(r, "legacy"), _g(r, "ret")
    fe, fp, fi, pi, pp = (_g(r, f) for f in ("fe", "fp", "fi", "pi", "pp"))
    bset, old_pp = _g(r, "bset"), _g(r, "old_pp")
    # the final binary decides: a script's interpreter
    form = ev.get("interp_form", ev.get("file_form"))
    present = _g(r, "tag") in LEGACY_TAGS or (main and form in VALUE_PRESENT_FORMS)
    if not legacy:
        b.add("exec/not-legacy-61")
        if present and choice(ev, "exec_off", "exec=0"):
            b.add("exec/rule-off")
        elif present and _g(r, "nosuid") and not choice(ev, "nosuid_ignore", "nosuid_ignore=1"):
            b.add("exec/nosuid-ignored")
    elif _g(r, "nosuid"):
        b.add("exec/nosuid-honoured")
    if legacy and _g(r, "form") == FORM_MALFORMED and ret == -EPERM:
        b.add("exec/malformed-eperm")
    if legacy and ret == 0:
        b.add("exec/legacy-applied")
        formula = (fp & bset) | (fi & pi)
        if fp & ~bset:
            b.add("exec/bset-cuts-fP")
        if fi & pi & ~(fp & bset):
            b.add("exec/fI-and-pI-adds")
        if pp & ~fe:
            b.add("exec/fE-narrows")
        if _g(r, "unsafe") and formula & ~old_pp and pp != formula:
            b.add("exec/downgrade")
        if (_g(r, "uid") == 0 or _g(r, "euid") == 0) and not _g(r, "securebits") & SECBIT_NOROOT \
                and bset & ~pp:
            b.add("exec/root-gets-fewer")
    if ret == 0 and _g(r, "secureexec"):
        # setid: the new ids differ, or the exec changed them (an unsafe
        # exec's ids fall back to the real ones, which the record holds)
        if _g(r, "setid") or (_g(r, "euid"), _g(r, "egid")) != (_g(r, "old_euid"),
                                                               _g(r, "old_egid")):
            b.add("exec/at-secure-setid")
        elif legacy and _g(r, "uid") != 0:
            b.add("exec/at-secure-fE" if fe else "exec/at-secure-fP" if fp else
                  "exec/at-secure-fI-only" if fi else "exec/at-secure-unexplained")
    if ret == 0 and "egid" in r and "old_egid" in r and r["egid"] != r["old_egid"]:
        b.add("exec/setgid")
    if _g(r, "securebits") & SECBIT_NOROOT:
        b.add("exec/noroot")
    return b


def kill_branch(r, ev):
    subset = not (_g(r, "target_pp") & ~_g(r, "pp"))
    same_ns = r.get("same_userns", 1)
    if _g(r, "explicit_cred"):
        return "kill/explicit-cred"
    if choice(ev, "kill_off", "kill=0"):
        return "kill/kill-off"
    if same_ns and subset:
        return "kill/subset-allows"
    if _g(r, "cap_in_target_ns"):
        return "kill/cap-kill-allows"
    return "kill/other-userns-denied" if subset else "kill/denied"


def sched_branch(r):
    if not (_g(r, "target_pp") & ~_g(r, "pp")):
        return "sched/subset-allows"
    return "sched/cap-sys-nice-allows" if _g(r, "cap_in_target_ns") else "sched/denied"


def classify(win):
    """{branch: {"catalogue": set(names), "random": set(names)}} over the
    kernel records of every event (markers and the workload's own kills,
    which reap the event's processes, are the harness's, not the rules')."""
    hits = {b: {"catalogue": set(), "random": set()} for b in BRANCHES}
    for i, ev in enumerate(win.events):
        recs = win.records(i, "kernel")
        main = last_exec(recs, ev.get("pid")) if ev["kind"] == "exec" else None
        col = "random" if ev["name"].startswith("random#") else "catalogue"
        for q, r in recs:
            if win.is_mark(q) or r["pid"] in win.own(i):
                continue
            if r["hook"] == EXEC:
                found = exec_branches(r, ev, r is main)
            elif r["hook"] == KILL:
                found = {kill_branch(r, ev)}
            elif r["hook"] in SCHED_HOOKS:
                found = {sched_branch(r)}
            elif r["hook"] in CHANNEL_HOOKS:    # the kill rule, by another way
                found = {kill_branch(r, ev).replace("kill/", hook_name(r["hook"]) + "/")}
            else:
                continue
            for b in found:
                hits.setdefault(b, {"catalogue": set(), "random": set()})[col].add(ev["name"])
    return hits


def table(hits, random_events):
    """Rows for the reports and the failures (branch names with why)."""
    rows, failures = [], []
    for b in list(BRANCHES) + sorted(set(hits) - set(BRANCHES)):
        cat, rnd = len(hits[b]["catalogue"]), len(hits[b]["random"])
        note = UNREACHABLE.get(b, BRANCHES.get(b, "not a rule of SEMANTICS.md: check the record"))
        rows.append({"branch": b, "catalogue": cat, "random": rnd,
                     "reachable": b not in UNREACHABLE, "note": note,
                     "example": sorted(hits[b]["catalogue"] or hits[b]["random"])[:1]})
        if b in UNREACHABLE:
            continue
        if b not in BRANCHES:
            failures.append("%s: records fit no rule (%d events)" % (b, cat + rnd))
        elif cat == 0:
            failures.append("%s: no catalogue event" % b)
        elif random_events >= RANDOM_RUN and rnd < MIN_RANDOM:
            failures.append("%s: %d random events (< %d in a run of %d)" % (b, rnd, MIN_RANDOM,
                                                                         random_events))
    return rows, failures
