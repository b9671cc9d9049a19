"""Condition coverage (MC/DC) of the rules of SEMANTICS.md over the shadow run.

RULES below is the one table of every atomic condition of the rules the
kernel path records, with the rule it belongs to. A condition is shown to
matter when the run holds an *independence pair*: two records of its rule
that differ in that condition, agree in what the condition is held against
(the rule's other conditions, or for a rule whose outcome is a set, the
inputs named in `hold`), and whose outcomes differ. The report prints each
condition with its pair count; a condition with none fails the run, and at
RANDOM_RUN random events one with fewer than MIN_PAIRS does.

Pairs are counted per group of held values as min(#true, #false) when the
two sides' outcomes differ: each record of the smaller side pairs with a
different one of the other.
"""
from diffdata import (EXEC, KILL, PRLIMIT, SCHED_HOOKS, SIGIO, V1_TAG, V3_TAG, WELL_FORMED,
                      choice, last_exec)
from fcaps_abi import CAP_SETFCAP, CAP_SYS_ADMIN, EPERM

MIN_PAIRS, RANDOM_RUN = 5, 5000


def _g(r, f):
    v = r.get(f)
    return v if isinstance(v, int) else 0


def _legacy_value(r, ev):
    """A well-formed legacy value: the record's own, or, for the event's
    last exec, the file's (an ignored value is not read, nor recorded)"""
    if _g(r, "tag") in (V1_TAG, V3_TAG):
        return _g(r, "form") == WELL_FORMED
    form = ev.get("interp_form", ev.get("file_form"))
    return ev.get("_main") is r and form == "legacy"


def _applied(r, ev):
    return _g(r, "legacy") and _g(r, "ret") == 0


def _formula(r):
    """pP' before the unsafe-exec downgrade (SEMANTICS 2.5)"""
    return (_g(r, "fp") & _g(r, "bset")) | (_g(r, "fi") & _g(r, "pi"))


class Rule:
    def __init__(self, name, section, hooks, select, outcome, conds, hold=None):
        self.name, self.section, self.hooks = name, section, hooks
        self.select, self.outcome, self.conds = select, outcome, conds
        # per condition: the fields held equal (a set-valued rule), or None:
        # the rule's other conditions
        self.hold = hold or {}


def _kill_conds():
    return [
        ("the kill rule is on (kernel.fcaps.kill=1)",
         lambda r, ev: not choice(ev, "kill_off", "kill=0")),
        ("sender and target share a user namespace", lambda r, ev: bool(r.get("same_userns", 1))),
        ("the target's pP is within the sender's",
         lambda r, ev: not (_g(r, "target_pp") & ~_g(r, "pp"))),
        ("the sender has CAP_KILL in the target's namespace",
         lambda r, ev: bool(_g(r, "cap_in_target_ns"))),
    ]


def _allowed(r, ev):
    return _g(r, "ret") == 0


RULES = [
    Rule("exec: the legacy rules apply", "2, 2.1", (EXEC,),
         lambda r, ev: _legacy_value(r, ev), lambda r, ev: bool(_g(r, "legacy")), [
             ("the exec rule is on (kernel.fcaps.exec=1)",
              lambda r, ev: not choice(ev, "exec_off", "exec=0")),
             ("the file's mount is nosuid", lambda r, ev: bool(_g(r, "nosuid"))),
             ("nosuid_ignore=1", lambda r, ev: choice(ev, "nosuid_ignore", "nosuid_ignore=1")),
         ]),
    Rule("exec: a malformed value fails the exec", "2.2", (EXEC,),
         lambda r, ev: _g(r, "tag") in (V1_TAG, V3_TAG) and (_g(r, "legacy") or
                                                          _g(r, "ret") == -EPERM),
         lambda r, ev: _g(r, "ret") == -EPERM, [
             ("the value is well-formed", lambda r, ev: _g(r, "form") == WELL_FORMED),
         ]),
    Rule("exec: pP' = (fP & bset) | (fI & pI)", "2.5", (EXEC,),
         lambda r, ev: _applied(r, ev) and not _g(r, "unsafe"), lambda r, ev: _g(r, "pp"), [
             ("the bounding set lacks part of fP", lambda r, ev: bool(_g(r, "fp") & ~_g(r, "bset"))),
             ("fI meets pI", lambda r, ev: bool(_g(r, "fi") & _g(r, "pi"))),
         ], hold={0: ("fp", "fi", "pi"), 1: ("fp", "fi", "bset")}),
    Rule("exec: pE' = pP' & fE", "2.5", (EXEC,),
         _applied, lambda r, ev: _g(r, "pe"), [
             ("fE lacks part of pP'", lambda r, ev: bool(_g(r, "pp") & ~_g(r, "fe"))),
         ], hold={0: ("pp",)}),
    Rule("exec: the unsafe-exec downgrade", "2.6", (EXEC,),
         _applied, lambda r, ev: (_g(r, "pp"), _g(r, "euid")), [
             ("the exec is unsafe (traced, shared fs, no_new_privs)",
              lambda r, ev: bool(_g(r, "unsafe"))),
             ("pP' grows beyond the old pP", lambda r, ev: bool(_formula(r) & ~_g(r, "old_pp"))),
         ], hold={0: ("fp", "fi", "pi", "bset", "old_pp", "setid"),
                  1: ("fp", "fi", "pi", "bset", "unsafe", "setid")}),
    Rule("exec: AT_SECURE", "2.7", (EXEC,),
         _applied, lambda r, ev: bool(_g(r, "secureexec")), [
             ("the exec is setid", lambda r, ev: bool(_g(r, "setid"))),
             # root of the credentials' namespace, not uid 0 of the initial one
             ("the real uid is not its namespace's root",
              lambda r, ev: _g(r, "uid") != _g(r, "root_uid")),
             ("fE, fP or fI is not empty",
              lambda r, ev: bool(_g(r, "fe") | _g(r, "fp") | _g(r, "fi"))),
         ]),
    Rule("signal: the kill rule", "3", (KILL,), lambda r, ev: ev["kind"] == "kill",
         _allowed, _kill_conds()),
    Rule("prlimit: the kill rule", "3", (PRLIMIT,), lambda r, ev: True, _allowed, _kill_conds()),
    Rule("SIGIO: the kill rule", "3", (SIGIO,), lambda r, ev: True, _allowed, _kill_conds()),
    Rule("scheduling: the target's pP or CAP_SYS_NICE", "4", SCHED_HOOKS,
         lambda r, ev: ev["kind"] == "sched", _allowed, [
             ("the target's pP is within the caller's",
              lambda r, ev: not (_g(r, "target_pp") & ~_g(r, "pp"))),
             ("the caller has CAP_SYS_NICE", lambda r, ev: bool(_g(r, "cap_in_target_ns"))),
         ]),
    # from the events: the actor's pE as it wrote (its status line), the
    # outcome the kernel path gave; actors in the initial namespace, whose
    # capabilities hold over every inode, and no value 6.1 refuses as such
    Rule("security.* writes: CAP_SETFCAP, else CAP_SYS_ADMIN", "1, 6", None,
         lambda r, ev: ev["kind"] == "xattr" and not ev.get("actor_userns")
         and "actor_Eff" in ev and ev.get("ret") in (0, -1)
         and (ev.get("ret") == 0 or ev.get("errno") == EPERM),
         lambda r, ev: ev.get("ret") == 0, [
             ("the name is security.capability",
              lambda r, ev: not ev.get("op", "").endswith("-other")),
             ("the actor has CAP_SETFCAP",
              lambda r, ev: bool(_g(ev, "actor_Eff") >> CAP_SETFCAP & 1)),
             ("the actor has CAP_SYS_ADMIN",
              lambda r, ev: bool(_g(ev, "actor_Eff") >> CAP_SYS_ADMIN & 1)),
         ]),
]
# Conditions the guest cannot reach, and why (listed, never failed)
UNREACHABLE = {
    ("signal: the kill rule", "explicit credentials"):
        "only USB async I/O sends explicit credentials; the guest has no USB",
}


def _records(win):
    """(rule, record, event, random?) for every kernel record some rule
    decides, and for the rules read from the events, every such event."""
    for i, ev in enumerate(win.events):
        rnd = ev["name"].startswith("random#")
        ev = dict(ev, _main=last_exec(win.records(i, "kernel"), ev.get("pid"))
                  if ev["kind"] == "exec" else None)
        for rule in RULES:
            if rule.hooks is None and rule.select(ev, ev):
                yield rule, ev, ev, rnd
        for side in ("kernel", "bpf"):
            for q, r in win.records(i, side):
                if win.is_mark(q) or r["pid"] in win.own(i):
                    continue
                if side == "bpf":
                    continue
                for rule in RULES:
                    if rule.hooks and r["hook"] in rule.hooks and rule.select(r, ev):
                        yield rule, r, ev, rnd


def pairs(win):
    """{(rule name, condition name): independence pairs}"""
    groups = {}
    for rule, r, ev, _ in _records(win):
        values = tuple(bool(c(r, ev)) for _, c in rule.conds)
        out = rule.outcome(r, ev)
        for k, (cname, _) in enumerate(rule.conds):
            held = rule.hold.get(k)
            key = tuple(_g(r, f) for f in held) if held else values[:k] + values[k + 1:]
            g = groups.setdefault((rule.name, cname, key), ({}, {}))
            g[values[k]].setdefault(out, 0)
            g[values[k]][out] += 1
    counts = {(rule.name, c): 0 for rule in RULES for c, _ in rule.conds}
    for (rname, cname, _), (off, on) in groups.items():
        # each record pairs with one of the other side whose outcome differs
        n = sum(min(a, b) for oa, a in on.items() for ob, b in off.items() if oa != ob)
        counts[(rname, cname)] += n
    return counts


def table(counts, random_events, only):
    rows, failures = [], []
    for rule in RULES:
        for cname, _ in rule.conds:
            n = counts.get((rule.name, cname), 0)
            rows.append({"rule": rule.name, "section": rule.section, "condition": cname,
                         "pairs": n})
            if only:
                continue
            if n == 0:
                failures.append("%s / %s: no independence pair" % (rule.name, cname))
            elif random_events >= RANDOM_RUN and n < MIN_PAIRS:
                failures.append("%s / %s: %d independence pairs (< %d in a run of %d)"
                                % (rule.name, cname, n, MIN_PAIRS, random_events))
    for (rname, cname), why in UNREACHABLE.items():
        rows.append({"rule": rname, "section": "3", "condition": cname, "pairs": None,
                     "note": why})
    return rows, failures
