#!/usr/bin/env python3
"""Compare one differential run (tests/diff/run) and write its report.

usage: compare.py RUNDIR EXPECTED OUTDIR

RUNDIR holds what tests/guest/diff.sh wrote (tests/diff/run adds the host's
facts to run.json). Three comparisons:
  shadow    every BPF decision joined with the kernel's by seq, compared on
            every recorded field (NOT_COMPARED lists the exceptions);
  observed  every kernel record of the shadow run against what the workload
            itself saw for that event (credentials, errno, AT_SECURE);
  swap      the workload's own observations, kernel-enforced run against
            BPF-enforced run, per event name;
  norec     BPF enforcing with --record none (the fcaps_*_norec programs,
            the rule alone) against the BPF run of swap (the recording
            programs), per event name, every observed field, nothing
            excused: one rule, so they may not differ.
It also classifies each kernel record of the shadow run by the rule of
SEMANTICS.md that decided it and fails on a coverage hole.

Exit status: 0 clean; 1 an unexpected disagreement or a coverage hole;
2 a harness error (missing, empty, truncated or inconsistent input, a lost
or evicted record): the run cannot be trusted, and stderr says why.
"""
import json
import os
import re
import shlex
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import battery  # noqa: E402
import calls  # noqa: E402
import coverage  # noqa: E402
import conditions  # noqa: E402
from diffdata import (DECISION_HOOKS, WELL_FORMED, XATTR_GUARD, HarnessError, Windows,  # noqa: E402
                      check_bookkeeping, check_drains, check_event_set, drain_counts,
                      event_pids, final_dumpers, hook_name, kind_of_hook, last_exec,
                      load_events, load_json, load_map, read_dumps, read_text)
from fcaps_abi import GUARD_EMPTY  # noqa: E402
from excuses import excuse  # noqa: E402

# ---- The one list of what the shadow join does NOT compare, and why. ----
# Every other field of a record, present on either side, is compared
# (a field added to struct fcaps_decision is compared without a change here).
EXEC_ONLY = ("form", "legacy", "nosuid", "dev", "ino", "tag", "uid", "euid", "suid", "gid",
             "egid", "old_euid", "old_egid", "secureexec", "setid", "unsafe", "fe", "fp", "fi",
             "old_pp", "bset", "live_old_pp")
PAIR_ONLY = ("target", "target_tgid", "sig", "explicit_cred", "same_userns", "cap_in_target_ns",
             "target_pp")
NOT_COMPARED = [
    # (hook family, fields, when, why)
    ("all", ("seq",), "always", "the join key itself"),
    ("exec", PAIR_ONLY, "always", "signal and scheduling inputs: an exec record leaves them 0"),
    ("exec", ("fe", "fp", "fi"), "unless both sides decided by the legacy rules on a "
     "well-formed value", "no file sets exist: no value, 6.1's own format, or a malformed one"),
    ("exec", ("all but ret, legacy, form, tag, dev, ino, nosuid",), "when either side refused "
     "the exec", "a refused exec gets no new credentials"),
    ("kill", EXEC_ONLY, "always", "exec inputs and results: a signal record leaves them 0"),
    ("kill", ("pi", "pa"), "always", "the signal rule reads pP and pE only; not recorded"),
    ("sched", EXEC_ONLY, "always", "exec inputs and results: a scheduling record leaves them 0"),
    ("sched", ("pi", "pa", "sig", "explicit_cred", "securebits"), "always",
     "not inputs of SEMANTICS section 4 (no signal, no explicit credentials, no securebits)"),
]
REFUSED_EXEC_FIELDS = ("hook", "pid", "ret", "legacy", "form", "tag", "dev", "ino", "nosuid")


def _never(family):
    out = set()
    for fam, fields, when, _ in NOT_COMPARED:
        if fam in ("all", family) and when == "always":
            out.update(fields)
    return out


NEVER = {f: _never(f) for f in ("exec", "kill", "sched")}


def compared_fields(b, k):
    family = kind_of_hook(b["hook"])
    fields = set(b) | set(k)
    if family == "exec" and (b.get("ret") or k.get("ret")):
        return [f for f in REFUSED_EXEC_FIELDS if f in fields]
    fields -= NEVER[family]
    if family == "exec" and not all(r.get("legacy") and r.get("form") == WELL_FORMED for r in (b, k)):
        fields -= {"fe", "fp", "fi"}
    return sorted(fields)


# ---- What the workload saw, against the kernel's record (observed). ----
OBSERVED_EXEC = [("pe", "Eff"), ("pp", "Prm"), ("pi", "Inh"), ("pa", "Amb"), ("uid", "ruid"),
                 ("euid", "euid"), ("suid", "suid"), ("gid", "rgid"), ("egid", "egid"),
                 ("secureexec", "secure"),
                 ("securebits", "securebits_after")]
# ---- The swap runs compare every field of an event's line but these. ----
SWAP_NOT_COMPARED = [
    (("workload", "runner", "pid", "sender", "target", "target_tgid", "child", "member",
      "actor", "then", "pids"),
     "process ids: each run has its own"),
    (("actor_Eff",), "an xattr actor's live effective set: a capped actor's is narrowed "
     "by its ceiling alone under BPF (it is the shadow run's input to the condition table)"),
    (("t_us",), "when the event's work ended: each run has its own clock"),
    (("caps_by_ambient",), "how the BPF run's actors got their sets (BPF cannot grant): 1 "
     "there by design; the sets themselves are compared (sender_Eff, target_Prm, ...)"),
]
SWAP_SKIP = {f for fields, _ in SWAP_NOT_COMPARED for f in fields}


def fmt(v):
    return "%#x" % v if isinstance(v, int) and v > 4096 else repr(v)


class Report:
    def __init__(self, meta, reasons):
        self.meta, self.reasons = meta, reasons
        self.rows = {}           # (comparison, hook) -> counters
        self.disagree, self.expected, self.harness = [], [], []
        self.coverage, self.coverage_failures = [], []
        self.conditions = []
        self.after_snapshot = {"dumper": 0, "other": []}
        self.drain_agree = 0     # records of mid-run drains both paths agree on
        self.shadow_exec = {}    # event name -> BPF's shadow record of its last exec
        self.swap_strict = None
        self.battery = None

    def add(self, comparison, hook, verdict, item=None):
        c = self.rows.setdefault((comparison, hook),
                                 {"events": 0, "agree": 0, "expected": 0, "disagree": 0})
        c["events"] += 1
        c[verdict] += 1
        if verdict == "disagree":
            item = dict(item, comparison=comparison, hook=hook)
            item["reproduce"] = reproduce(self.meta, item.get("event"))
            self.disagree.append(item)
        elif verdict == "expected":
            self.expected.append(dict(item, comparison=comparison, hook=hook,
                                      reason=self.reasons[item["id"]]))


def reproduce(meta, name):
    kernel = meta.get("kernel", "patched")
    cmd = "make diff %sSEED=%s EVENTS=%s" % ("KVER=6.12 " if kernel == "patched-6.12" else "",
                                           meta.get("seed"), meta.get("events"))
    if name:
        cmd += " ONLY=" + shlex.quote(name)
    extra = []
    if meta.get("which") == "shadow":
        extra.append("--shadow-only")
    if meta.get("drain_every") and not name:   # one event alone never drains
        extra += ["--drain-every", str(meta["drain_every"])]
    if meta.get("append"):
        extra += ["--append", meta["append"]]
    default_ctl = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                               "../../build/guest-bin/fcapsctl")
    ctl_path = meta.get("fcapsctl_path") or default_ctl
    if (meta.get("fcapsctl", "fcapsctl") != "fcapsctl" or
            os.path.realpath(ctl_path) != os.path.realpath(default_ctl)):
        extra += ["--fcapsctl", "%s:%s" % (meta["fcapsctl"], meta.get("fcapsctl_path", "PATH"))]
    if extra or kernel not in ("patched", "patched-6.12"):
        if kernel != "patched":
            extra += ["--kernel", kernel]
        cmd = "tests/diff/run --seed %s --events %s %s" % (
            meta.get("seed"), meta.get("events"), " ".join(shlex.quote(w) for w in extra))
        if name:
            cmd += " --only " + shlex.quote(name)
    return cmd


# ---------------------------------------------------------------- shadow
def shadow(run, rep):
    p = lambda n: os.path.join(run, n)  # noqa: E731
    bpf = load_map(p("shadow-bpf.json"), "decisions", "BPF decision dump (shadow-bpf.json)")
    kern_all = load_map(p("shadow-kernel.json"), "kdecisions", "kernel decision dump (shadow-kernel.json)")
    events = load_events(p("shadow-events.jsonl"), "shadow workload output")
    check_event_set(events, rep.meta, "shadow")
    bdumps, kdumps = read_dumps(run, ["shadow-bpfdump.pid"]), read_dumps(run, ["shadow-kdump.pid"])
    rep.harness += check_bookkeeping(run, "shadow", {"decisions": bpf, "kdecisions": kern_all},
                                     {"decisions": drain_counts(bdumps),
                                      "kdecisions": drain_counts(kdumps)})
    rep.harness += check_drains(bdumps, rep.meta, "shadow-bpfdump.pid") + \
        check_drains(kdumps, rep.meta, "shadow-kdump.pid")
    dumpers = final_dumpers(bdumps + kdumps)
    if not bpf:
        raise HarnessError("the BPF decision map of the shadow run is empty")
    # The BPF map is read first; the reader of the kernel's map is itself an
    # exec the kernel records after that snapshot. Only the reader's records
    # may be newer; anything of the workload's there is a record BPF lost.
    snapshot = max(bpf)
    kern = {q: r for q, r in kern_all.items() if q <= snapshot}
    ours = set().union(*(event_pids(e) for e in events)) | {e["workload"] for e in events} | \
        {e["runner"] for e in events if isinstance(e.get("runner"), int)}
    for q in sorted(set(kern_all) - set(kern)):
        r = kern_all[q]
        if r["pid"] in dumpers:
            rep.after_snapshot["dumper"] += 1
        elif r["pid"] in ours:
            rep.harness.append("kernel record seq %d (%s, pid %d) is newer than the BPF snapshot "
                               "(last seq %d) and belongs to the workload: BPF lost it"
                               % (q, hook_name(r["hook"]), r["pid"], snapshot))
        else:
            rep.after_snapshot["other"].append({"seq": q, "hook": hook_name(r["hook"]),
                                                "pid": r["pid"]})
    win = Windows(events, bpf, kern, bdumps + kdumps, "shadow")
    rep.harness += win.mismatches("shadow")
    # BPF's prediction of each exec event's last exec, made where the
    # kernel enforced: what a chain's drift is measured against (excuse())
    rep.shadow_exec = {ev["name"]: last_exec(win.records(i, "bpf"), ev.get("pid"))
                       for i, ev in enumerate(events) if ev["kind"] == "exec"}
    for seq in sorted(set(bpf) | set(kern)):
        join(seq, bpf.get(seq), kern.get(seq), win, rep)
    for i, ev in enumerate(events):
        if ev["kind"] == "xattr":
            observe_xattr(ev, win.records(i, "bpf"), rep)
        observe(ev, win.records(i, "kernel"), win.own(i), rep)
    if not rep.meta.get("only"):
        hits = coverage.classify(win)
        nrandom = sum(e["name"].startswith("random#") for e in events)
        rep.coverage, rep.coverage_failures = coverage.table(hits, nrandom)
    nrandom = sum(e["name"].startswith("random#") for e in events)
    rep.conditions, failed = conditions.table(conditions.pairs(win), nrandom,
                                              rep.meta.get("only"))
    rep.coverage_failures += failed
    return len(events)


def join(seq, b, k, win, rep):
    if k is None and b["hook"] == XATTR_GUARD:
        return                  # BPF's alone: held to what was observed (observe_xattr)
    for r, hooks in ((b, DECISION_HOOKS + (XATTR_GUARD,)), (k, DECISION_HOOKS)):
        if r is not None and r["hook"] not in hooks:
            rep.harness.append("seq %d: a %s record in a decision map" % (seq, hook_name(r["hook"])))
            return
    r = k or b                  # the kernel's record names the hook when there is one
    role, i = win.role(seq)
    ev = win.events[i] if i is not None else None
    label = {"marker": "(marker) %s", "event": "%s", "setup": "(workload setup)",
             "dumper": "(map dump)", "drain": "(ring drain)"}[role]
    item = {"key": seq, "event": ev["name"] if ev and role in ("marker", "event") else None,
            "scenario": label % ev["name"] if "%s" in label else label, "pid": r["pid"],
            "bpf": b, "kernel": k}
    hook = hook_name(r["hook"])
    if b is None or k is None:
        item.update(why="only in %s" % ("the kernel's map" if b is None else "the BPF map"),
                    fields=["record"])
    elif b["hook"] != k["hook"]:
        item.update(why="the kernel's %s record has the seq of BPF's %s record" % (
            hook, hook_name(b["hook"])), fields=["hook"])
    else:
        diff = [f for f in compared_fields(b, k) if b.get(f) != k.get(f)]
        if diff:
            item.update(why="differs in " + ", ".join(diff), fields=diff)
    if role == "drain" and "why" not in item:
        # the harness's own, which a shorter run would not have: not counted
        rep.drain_agree += 1
        return
    rep.add("shadow", hook, "disagree" if "why" in item else "agree", item)


# -------------------------------------------------------------- observed
def hung(ev, path):
    """Why @ev is a disagreement for having hung on @path, or None"""
    if not ev.get("hang"):
        return None
    return "did not finish on the %s path within %s s (hung)" % (path, ev["hang"])


def observe(ev, recs, workload, rep):
    kind = ev["kind"]
    item = {"key": ev["name"], "event": ev["name"], "scenario": ev["name"], "observed": ev}
    if hung(ev, "kernel"):
        item.update(why=hung(ev, "kernel"), fields=["hang"])
        rep.add("observed", kind, "disagree", item)
        return
    if kind in ("xattr", "caps"):   # their execs are joined; BPF's ceiling records nothing
        return
    if kind == "exec":
        if not isinstance(ev.get("pid"), int):
            # a chain may stop before its last exec (a step it could not
            # take): its execs are joined in shadow, its steps in swap
            if "steps" not in ev:
                rep.harness.append("shadow: exec event %r reports no pid" % ev["name"])
            return
        why, fields, item["kernel"] = observe_exec(ev, recs)
    else:
        call = calls.call_of(ev)
        if kind in ("kill", "sched") and call.ret is None:
            if calls.not_made(ev):
                return      # nothing was decided, nothing to observe
            rep.harness.append("shadow: %s event %r reports no ret" % (kind, ev["name"]))
            return
        why = calls.check_observed(recs, call, ev, workload)
        fields = ["ret"]
        item["kernel"] = calls.call_records(recs, call, ev, workload) or None
    if why is None:
        rep.add("observed", kind, "agree")
    else:
        item.update(why=why, fields=fields)
        rep.add("observed", kind, "disagree", item)


def observe_xattr(ev, recs, rep):
    """BPF's guard (its record, hook xattr_guard) against what the kernel
    path did with the same write: a refusal of BPF's own is a refusal; an
    empty security.capability BPF allows, the kernel path must allow too
    (elsewhere BPF leaves the decision to the capability module)."""
    item = {"key": ev["name"], "event": ev["name"], "scenario": ev["name"], "observed": ev}
    guard = [r for _, r in recs if r["hook"] == XATTR_GUARD and r["pid"] == ev.get("actor")]
    r = guard[-1] if guard else None
    ok = ev.get("ret") == 0
    why = None
    if hung(ev, "kernel"):
        return                  # observe() reports it
    if r is None:
        if ok:
            why = "the write succeeded but BPF's guard has no record of it"
    elif r.get("ret", 0) < 0 and (ok or ev.get("errno") != -r["ret"]):
        why = "BPF's guard refused (%d), the kernel path %s" % (
            r["ret"], "allowed it" if ok else "failed with errno %s" % ev.get("errno"))
    elif r.get("ret", 0) >= 0 and r.get("arg", 0) & GUARD_EMPTY and not ok:
        why = "BPF's guard allows an empty security.capability the kernel path refused " \
              "(errno %s)" % ev.get("errno")
    item["bpf"] = r
    if why is None:
        rep.add("observed", "xattr", "agree")
    else:
        item.update(why=why, fields=["ret"])
        rep.add("observed", "xattr", "disagree", item)


IDS = ("uid", "euid", "suid", "gid", "egid")


def observe_exec(ev, recs):
    """The event's process's last exec record against its observations."""
    r = last_exec(recs, ev["pid"])
    if r is None:
        return "no kernel exec record for the event's process", ["record"], None
    if isinstance(ev.get("exec_errno"), int):
        if r.get("ret") != -ev["exec_errno"]:
            return ("kernel ret %s, the exec failed with errno %d" % (r.get("ret"), ev["exec_errno"]),
                    ["ret"], r)
        return None, [], r
    if r.get("ret") != 0:
        return "kernel ret %s, but the exec succeeded" % r.get("ret"), ["ret"], r
    # a chain that unshared a user namespace sees its ids through its maps
    diff = [(f, o) for f, o in OBSERVED_EXEC if o in ev and r.get(f) != ev[o]
            and not (ev.get("userns") and f in IDS)]
    if not diff:
        return None, [], r
    return ("; ".join("kernel %s %s, observed %s %s" % (f, fmt(r.get(f)), o, fmt(ev[o]))
                      for f, o in diff), [f for f, _ in diff], r)


# ----------------------------------------------------------------- norec
def norec(run, rep):
    """The --record none run against the recording BPF run: the same rule
    decides in both (docs/testing.md), so any difference is a disagreement."""
    p = lambda n: os.path.join(run, n)  # noqa: E731
    bev = load_events(p("swap-bpf.jsonl"), "swap workload output, BPF run")
    nev = load_events(p("swap-norec.jsonl"), "workload output, BPF run with --record none")
    check_event_set(nev, rep.meta, "norec (BPF run with --record none)")
    index = {e["name"]: i for i, e in enumerate(bev)}
    missing = sorted(set(index) ^ {e["name"] for e in nev})
    if missing:
        rep.harness.append("norec: %d events in one run only, e.g. %r" % (len(missing), missing[0]))
    for n in nev:
        if n["name"] not in index or n["kind"] != bev[index[n["name"]]]["kind"]:
            continue
        b, kind = bev[index[n["name"]]], n["kind"]
        diff = sorted(f for f in set(n) | set(b) if f not in SWAP_SKIP and n.get(f) != b.get(f))
        if hung(n, "BPF (--record none)") and "hang" not in diff:
            diff.append("hang")
        if not diff:
            rep.add("norec", kind, "agree")
            continue
        rep.add("norec", kind, "disagree", {
            "key": n["name"], "event": n["name"], "scenario": n["name"],
            "kernel": b, "bpf": n, "fields": diff,
            "why": "differs in %s from the recording run (shown as kernel)" % ", ".join(diff)})


# ------------------------------------------------------------------ swap
def swap(run, rep):
    p = lambda n: os.path.join(run, n)  # noqa: E731
    kev = load_events(p("swap-kernel.jsonl"), "swap workload output, kernel run")
    bev = load_events(p("swap-bpf.jsonl"), "swap workload output, BPF run")
    check_event_set(kev, rep.meta, "swap (kernel run)")
    check_event_set(bev, rep.meta, "swap (BPF run)")
    recs = load_map(p("swap-bpf.json"), "decisions", "BPF decision dump (swap-bpf.json)")
    dumps = read_dumps(run, ["swap-bpfdump.pid"])
    rep.harness += check_drains(dumps, rep.meta, "swap-bpfdump.pid")
    rep.harness += check_bookkeeping(run, "swap", {"decisions": recs},
                                     {"decisions": drain_counts(dumps)})
    win = Windows(bev, recs, {}, dumps, "swap")
    rep.harness += win.mismatches("swap")
    index = {e["name"]: i for i, e in enumerate(bev)}
    missing = sorted(set(index) ^ {e["name"] for e in kev})
    if missing:
        rep.harness.append("swap: %d events in one run only, e.g. %r" % (len(missing), missing[0]))
    strict = {"kill": 0, "sched": 0, "kill_excused": 0, "sched_excused": 0}
    rep.battery = battery.Table()
    for k in kev:
        if k["name"] not in index or k["kind"] != bev[index[k["name"]]]["kind"]:
            continue
        i = index[k["name"]]
        b, kind = bev[i], k["kind"]
        item = {"key": k["name"], "event": k["name"], "scenario": k["name"], "kernel": k, "bpf": b}
        diff = sorted(f for f in set(k) | set(b) if f not in SWAP_SKIP and k.get(f) != b.get(f))
        rule, how = excuse(kind, diff, k, b, win.records(i, "bpf"), win.own(i),
                           rep.shadow_exec.get(k["name"]))
        if hung(k, "kernel") or hung(b, "BPF"):
            rule, how = None, hung(k, "kernel") or hung(b, "BPF")
        if kind == "exec":
            rep.battery.add(k, b, last_exec(win.records(i, "bpf"), b.get("pid")),
                            set(diff) if rule else set())
        if kind in ("kill", "sched"):
            strict[kind + ("_excused" if rule else "")] += 1
        if not diff:
            rep.add("swap", kind, "agree")
            continue
        item.update(why="differs in " + ", ".join(diff), fields=diff)
        if rule:
            item.update(id=rule, how=how)
        else:
            item["why"] += " (not excused: %s)" % how
        rep.add("swap", kind, "expected" if rule else "disagree", item)
    rep.swap_strict = strict


# ---------------------------------------------------------------- report
def summary_rows(rep):
    return [dict(comparison=c, hook=h, **v) for (c, h), v in sorted(rep.rows.items())]


def write_reports(out, rep):
    os.makedirs(out, exist_ok=True)
    summary = summary_rows(rep)
    meta = rep.meta
    with open(os.path.join(out, "report.json"), "w") as f:
        json.dump({"run": dict(meta, kernel_line=kernel_line(meta)),
                   "harness_errors": rep.harness, "summary": summary,
                   "disagreements": rep.disagree, "expected": rep.expected,
                   "coverage": rep.coverage, "coverage_failures": rep.coverage_failures,
                   "conditions": rep.conditions,
                   "swap_strict": rep.swap_strict, "kernel_after_snapshot": rep.after_snapshot,
                   "drain_records_agreed": rep.drain_agree,
                   "battery": rep.battery.as_list() if rep.battery else [],
                   "not_compared": [{"hook": h, "fields": list(fs), "when": w, "why": y}
                                    for h, fs, w, y in NOT_COMPARED],
                   "swap_not_compared": [{"fields": list(fs), "why": y}
                                         for fs, y in SWAP_NOT_COMPARED]},
                  f, indent=1, sort_keys=True)
    md = ["# fcaps differential on Linux %s, seed %s, %s random events%s" % (
        kernel_line(meta), meta.get("seed"), meta.get("events"),
        ", only %r" % meta["only"] if meta.get("only") else ""), ""]
    md += ["- %s: `%s`" % (k, meta.get(k)) for k in ("git", "kernel", "release", "bzimage_sha256",
                                                     "append", "cmdline", "fcapsctl",
                                                     "fcapsctl_sha256")
           if meta.get(k) not in (None, "")]
    md += timing_md(meta, rep)
    if rep.harness:
        md += ["", "## Harness errors (%d): the run cannot be trusted" % len(rep.harness), ""]
        md += ["- " + h for h in rep.harness]
    md += ["", "| comparison | hook | events | agree | expected-diverge | disagree |",
           "|---|---|---|---|---|---|"]
    md += ["| %(comparison)s | %(hook)s | %(events)d | %(agree)d | %(expected)d | %(disagree)d |" % s
           for s in summary]
    if rep.swap_strict:
        md += ["", swap_strict_line(rep.swap_strict)]
    md += coverage_md(rep)
    md += rep.battery.markdown() if rep.battery else []
    md += ["", "## Disagreements (%d)" % len(rep.disagree), ""]
    if rep.disagree:
        md += ["| comparison | scenario | key | why | BPF | kernel | reproduce |",
               "|---|---|---|---|---|---|---|"]
        md += ["| %s | %s | %s | %s | `%s` | `%s` | `%s` |" % (
            d["comparison"], d["scenario"], d["key"], d.get("why", ""),
            json.dumps(d.get("bpf")), json.dumps(d.get("kernel")), d["reproduce"])
            for d in rep.disagree]
    md += expected_md(rep)
    md += ["", "## Kernel records newer than the BPF snapshot", "",
           "- %d from the process that dumped the kernel's map (left out)"
           % rep.after_snapshot["dumper"],
           "- %d from other processes, not the workload's (left out): %s" % (
               len(rep.after_snapshot["other"]), json.dumps(rep.after_snapshot["other"][:10]))]
    md += ["", "## Fields not compared in the shadow join", "",
           "| hook | fields | when | why |", "|---|---|---|---|"]
    md += ["| %s | %s | %s | %s |" % (h, ", ".join(fs), w, y) for h, fs, w, y in NOT_COMPARED]
    md += ["", "The swap comparison compares every field of an event's line in the two runs but:",
           ""] + ["- %s: %s" % (", ".join(fs), y) for fs, y in SWAP_NOT_COMPARED]
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    return summary


def timing_md(meta, rep):
    """How long the guests took, and how the rings were drained"""
    md = []
    if isinstance(meta.get("guest_wall_s"), int):
        lanes = meta.get("lanes", 1)
        md.append("- guest run: %d s wall, %s lane(s), %s guest(s); shadow phase %s s, "
                  "swap phases %s s" % (meta["guest_wall_s"], lanes, meta.get("guests", lanes),
                                        meta.get("shadow_s"), meta.get("swap_s")))
    if meta.get("drain_every"):
        md.append("- rings drained after every %d random events; %d records of the drains "
                  "agreed (not counted below)" % (meta["drain_every"], rep.drain_agree))
    return md


def kernel_line(meta):
    """The kernel line the guest ran ("6.12" of release "6.12.118"), or "?"."""
    m = re.match(r"(\d+\.\d+)", meta.get("release") or "")
    return m.group(1) if m else "?"


def swap_strict_line(s):
    return ("Swap: %d kill and %d sched events compared strictly (%d kill and %d sched excused "
            "as swap-caps-from-exec)." % (s["kill"], s["sched"], s["kill_excused"],
                                          s["sched_excused"]))


def coverage_md(rep):
    if not rep.coverage:
        return []
    md = ["", "## Coverage: which rule decided the kernel's records (shadow run)", "",
          "| branch | catalogue events | random events | meaning |", "|---|---|---|---|"]
    md += ["| %s | %d | %d | %s%s |" % (c["branch"], c["catalogue"], c["random"],
                                        "" if c["reachable"] else "**not counted**: ", c["note"])
           for c in rep.coverage]
    md += ["", "## Conditions: independence pairs (MC/DC, tests/diff/conditions.py)", "",
           "| rule | section | condition | pairs |", "|---|---|---|---|"]
    md += ["| %s | %s | %s | %s |" % (c["rule"], c["section"], c["condition"],
                                     c["pairs"] if c["pairs"] is not None else
                                     "not counted: " + c.get("note", ""))
           for c in rep.conditions]
    if rep.coverage_failures:
        md += ["", "Coverage holes (the run fails):", ""]
        md += ["- " + f for f in rep.coverage_failures]
    return md


def expected_md(rep):
    md = ["", "## Expected divergences (%d; every one in report.json)" % len(rep.expected), ""]
    by_id = {}
    for e in rep.expected:
        by_id.setdefault(e["id"], []).append(e)
    for rid, items in sorted(by_id.items()):
        md.append("- **%s** (%d events): %s" % (rid, len(items), items[0]["reason"]))
        md += ["  - %s (%s; %s)" % (e["scenario"], e.get("why", ""), e.get("how", ""))
               for e in items[:10]]
        if len(items) > 10:
            md.append("  - ... %d more in report.json" % (len(items) - 10))
    return md


def print_terminal(rep, summary, out):
    print("%-8s %-13s %7s %7s %9s %9s" % ("", "hook", "events", "agree", "expected", "disagree"))
    for s in summary:
        print("%-8s %-13s %7d %7d %9d %9d" % (s["comparison"], s["hook"], s["events"],
                                               s["agree"], s["expected"], s["disagree"]))
    if rep.swap_strict:
        print(swap_strict_line(rep.swap_strict))
    rows = rep.battery.as_list() if rep.battery else []
    if rows:
        print("%-12s %-22s %-6s %6s %6s %6s %6s %7s %8s %11s" % (
            "battery", "capability", "after", "events", "kernel", "bpf", "agree", "excused",
            "disagree", "root capped"))
    for r in rows:
        print("%-12s %-22s %-6s %6d %6d %6d %6d %7d %8d %5d/%-5d" % (
            r["op"], r["capability"], r["after"], r["events"], r["kernel"], r["bpf"], r["agree"],
            r["excused"], r["disagree"], r["root_capped_agree"], r["root_capped"]))
    if rep.coverage:
        print("%-28s %9s %7s" % ("branch", "catalogue", "random"))
        for c in rep.coverage:
            print("%-28s %9d %7d%s" % (c["branch"], c["catalogue"], c["random"],
                                       "" if c["reachable"] else "  (" + c["note"] + ")"))
    if rep.conditions:
        print("%-52s %-52s %6s" % ("rule", "condition", "pairs"))
        for c in rep.conditions:
            print("%-52s %-52s %6s" % (c["rule"][:52], c["condition"][:52],
                                        c["pairs"] if c["pairs"] is not None else "-"))
    for d in rep.disagree[:20]:
        print("DISAGREE %s %s [%s] %s\n  bpf:       %s\n  kernel:    %s\n  reproduce: %s" % (
            d["comparison"], d["scenario"], d["key"], d.get("why", ""),
            json.dumps(d.get("bpf")), json.dumps(d.get("kernel")), d["reproduce"]))
    if len(rep.disagree) > 20:
        print("... %d more disagreements in %s/report.md" % (len(rep.disagree) - 20, out))
    for f in rep.coverage_failures:
        print("COVERAGE HOLE %s" % f)
    print("%d unexpected disagreements, %d expected divergences, %d coverage holes; seed %s; "
          "report in %s" % (len(rep.disagree), len(rep.expected), len(rep.coverage_failures),
                            rep.meta.get("seed"), out))


def read_expected(path):
    reasons = {}
    for line in read_text(path, "expected divergences").splitlines():
        if line.strip() and not line.startswith("#"):
            parts = [p.strip() for p in line.split("|", 2)]
            if len(parts) != 3:
                raise HarnessError("%s: not 'ID | comparison | reason': %r" % (path, line))
            reasons[parts[0]] = parts[2]
    for rid in ("swap-exec-creds", "swap-caps-from-exec", "swap-battery-grant",
                "swap-chain-drift"):
        if rid not in reasons:
            raise HarnessError("%s lacks the expected divergence %s" % (path, rid))
    return reasons


def compare(run, expected, out):
    meta = {}
    rep = Report(meta, {})
    try:
        rep.reasons = read_expected(expected)
        loaded = load_json(os.path.join(run, "run.json"), "run.json")
        if not isinstance(loaded, dict):
            raise HarnessError("run.json is not a JSON object")
        meta.update(loaded)
        if meta.get("which") not in ("all", "shadow"):
            raise HarnessError("run.json says which=%r: not a whole run (a lane of two "
                               "left alone?)" % meta.get("which"))
        meta["workload_events"] = shadow(run, rep)
        if meta.get("which") == "all":
            swap(run, rep)
            norec(run, rep)
    except HarnessError as e:
        rep.harness.append(str(e))
    summary = write_reports(out, rep)
    if rep.harness:
        for h in rep.harness:
            print("compare: harness error: %s" % h, file=sys.stderr)
        print("compare: %d harness errors: the run is incomplete or inconsistent; report in %s"
              % (len(rep.harness), out), file=sys.stderr)
        return 2
    print_terminal(rep, summary, out)
    return 1 if rep.disagree or rep.coverage_failures else 0


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        return compare(*sys.argv[1:])
    except Exception as e:  # bad input must never end in a traceback
        where = traceback.extract_tb(e.__traceback__)[-1]
        print("compare: harness error: cannot read the run (%s: %s, at %s:%d)" % (
            type(e).__name__, e, os.path.basename(where.filename), where.lineno), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
