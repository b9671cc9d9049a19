#!/usr/bin/env python3
"""Compare one differential run (tests/diff/run) and write its report.

usage: compare.py RUNDIR EXPECTED OUTDIR

RUNDIR holds what tests/guest/diff.sh wrote. Shadow: every BPF decision
joined with the kernel's by seq, compared on decision and every credential
field. Swap: the workload's own observations compared per event name.
Exit status 0 only when nothing disagrees unexpectedly.
"""
import bisect
import json
import os
import sys

HOOKS = ["exec", "kill", "setscheduler", "setnice", "setioprio", "xattr"]
EXEC_FIELDS = ["ret", "legacy", "uid", "euid", "pe", "pp", "pi", "pa", "secureexec"]
LEGACY_FIELDS = ["tag", "fe", "fp", "fi"]     # when both sides say legacy
KILL_FIELDS = ["ret", "target", "sig", "pp", "target_pp"]
OBSERVED = {
    "exec": ["exec_errno", "euid", "Eff", "Prm", "Inh", "Amb", "secure"],
    "kill": ["ret", "errno"], "sched": ["ret", "errno"],
    "sigchld": ["sigchld", "child_kill_errno"],
    "xinit": ["kill", "errno", "child_alive", "child_signal"],
}
# What BPF cannot give an exec: the sets. pI' = pI and the ids agree on
# both paths, so euid and Inh are never excused.
CRED_FIELDS = {"Eff", "Prm", "Amb"}


def load_map(path):
    with open(path) as f:
        return {e["formatted"]["key"]: e["formatted"]["value"] for e in json.load(f)}


def load_events(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def windows(records, events):
    """Attribute records to events. The workload starts every event with a
    signal 0 to itself; both maps record it, so a record belongs to the
    event of the last marker before its seq (pids are reused too soon on
    the small guest kernel to tell events apart by pid)."""
    wl = {ev["workload"] for ev in events}
    marks = sorted(q for q, r in records.items() if r["hook"] == 1 and r["sig"] == 0 and
                   r["pid"] in wl and r["target"] == r["pid"])
    if len(marks) != len(events):
        sys.exit("compare: %d event markers in the map for %d events: the run is incomplete"
                 % (len(marks), len(events)))
    owner = {}
    for q in records:
        i = bisect.bisect_right(marks, q) - 1
        owner[q] = None if q in marks else (i if i >= 0 else None)
    return owner


def event_pids(ev):
    return {ev[k] for k in ("pid", "sender", "target", "child") if k in ev}


def scenario(ev, pid):
    if ev is None:
        return "(before the workload, pid %d)" % pid
    if pid in event_pids(ev) or ev.get("kind") == "exec":
        return ev["name"]
    return "%s (pid %d)" % (ev["name"], pid)


class Report:
    def __init__(self):
        self.rows = {}      # (comparison, hook) -> counters
        self.disagree = []
        self.expected = []

    def count(self, comparison, hook, verdict):
        c = self.rows.setdefault((comparison, hook),
                                 {"events": 0, "agree": 0, "expected": 0, "disagree": 0})
        c["events"] += 1
        c[verdict] += 1

    def add(self, comparison, hook, verdict, item=None):
        self.count(comparison, hook, verdict)
        if verdict == "disagree":
            self.disagree.append(dict(item, comparison=comparison, hook=hook))
        elif verdict == "expected":
            self.expected.append(dict(item, comparison=comparison, hook=hook))


def shadow(run, rep, reasons):
    bpf = load_map(os.path.join(run, "shadow-bpf.json"))
    kern = load_map(os.path.join(run, "shadow-kernel.json"))
    events = load_events(os.path.join(run, "shadow-events.jsonl"))
    owner = windows(bpf, events)
    # The BPF map is read first; the reader of the kernel's map is itself an
    # exec the kernel records after that snapshot. Such records are left out.
    snapshot = max(bpf) if bpf else 0
    sched_done = set()
    for seq in sorted(set(bpf) | {q for q in kern if q <= snapshot}):
        b, k = bpf.get(seq), kern.get(seq)
        hook = HOOKS[(b or k)["hook"]]
        pid = (b or k)["pid"]
        ev = events[owner[seq]] if owner.get(seq) is not None else None
        item = {"key": seq, "scenario": scenario(ev, pid) if seq in owner else "(marker)",
                "bpf": b, "kernel": k}
        if hook in ("setscheduler", "setnice", "setioprio"):
            if not ev or ev["kind"] != "sched" or ev["sender"] != pid:
                item["why"] = "a scheduling record outside a workload scheduling event"
                rep.add("shadow", hook, "disagree", item)
                continue
            sched_done.add(owner[seq])
            same = b["ret"] == (0 if ev["ret"] == 0 else -ev.get("errno", -1000))
            item["observed"] = ev
            if same:
                item["id"], item["reason"] = "sched-no-kernel-record", reasons["sched-no-kernel-record"]
            else:
                item["why"] = "BPF decision differs from the errno the workload saw"
            rep.add("shadow", hook, "expected" if same else "disagree", item)
            continue
        if b is None or k is None:
            item["why"] = "only in %s" % ("the kernel's map" if b is None else "the BPF map")
            rep.add("shadow", hook, "disagree", item)
            continue
        fields = EXEC_FIELDS if hook == "exec" else KILL_FIELDS
        if hook == "exec" and b["ret"] != 0:
            fields = ["ret", "legacy"]      # a refused exec has no credentials
        if hook == "exec" and b["legacy"] and k["legacy"]:
            # a malformed value's sets are not defined: compare its tag only
            fields = fields + (LEGACY_FIELDS if b["ret"] == 0 else ["tag"])
        diff = [f for f in fields if b[f] != k[f]]
        if diff:
            item["why"] = "differs in " + ", ".join(diff)
        rep.add("shadow", hook, "disagree" if diff else "agree", item)
    # A scheduling call that succeeded went through the hook, so it must
    # have a BPF record (a refused one may have stopped at the uid check).
    for i, ev in enumerate(events):
        if ev["kind"] == "sched" and ev["ret"] == 0 and i not in sched_done:
            rep.add("shadow", "sched-event", "disagree",
                    {"key": ev["name"], "scenario": ev["name"], "bpf": None, "kernel": None,
                     "observed": ev, "why": "no BPF record for this scheduling call"})
    return len(events)


def legacy_events(run, events):
    """Names of the swap-BPF events in which an exec was decided by the
    legacy rules (and allowed): under the kernel those processes got caps."""
    recs = load_map(os.path.join(run, "swap-bpf.json"))
    owner = windows(recs, events)
    return {events[owner[q]]["name"] for q, r in recs.items()
            if owner.get(q) is not None and r["hook"] == 0 and r["legacy"] and r["ret"] == 0}


def swap(run, rep, reasons):
    kern = {e["name"]: e for e in load_events(os.path.join(run, "swap-kernel.jsonl"))}
    bpf_events = load_events(os.path.join(run, "swap-bpf.jsonl"))
    bpf = {e["name"]: e for e in bpf_events}
    legacy = legacy_events(run, bpf_events)
    for name in list(kern) + [n for n in bpf if n not in kern]:
        k, b = kern.get(name), bpf.get(name)
        kind = (k or b)["kind"]
        item = {"key": name, "scenario": name, "kernel": k, "bpf": b}
        if k is None or b is None:
            item["why"] = "event missing from one run"
            rep.add("swap", kind, "disagree", item)
            continue
        diff = [f for f in OBSERVED[kind] if k.get(f) != b.get(f)]
        if not diff:
            rep.add("swap", kind, "agree")
            continue
        item["why"] = "differs in " + ", ".join(diff)
        rule = None
        if name in legacy and kind == "exec" and set(diff) <= CRED_FIELDS:
            rule = "swap-exec-creds"
        elif name in legacy and kind in ("kill", "sched", "sigchld", "xinit"):
            rule = "swap-caps-from-exec"
        if rule:
            item["id"], item["reason"] = rule, reasons[rule]
        rep.add("swap", kind, "expected" if rule else "disagree", item)


def write_reports(out, rep, meta):
    os.makedirs(out, exist_ok=True)
    summary = [dict(comparison=c, hook=h, **v) for (c, h), v in sorted(rep.rows.items())]
    with open(os.path.join(out, "report.json"), "w") as f:
        json.dump({"run": meta, "summary": summary, "disagreements": rep.disagree,
                   "expected": rep.expected}, f, indent=1, sort_keys=True)
    lines = ["# fcaps differential, seed %s, %s random events" % (meta.get("seed"), meta.get("events")),
             "", "| comparison | hook | events | agree | expected-diverge | disagree |",
             "|---|---|---|---|---|---|"]
    lines += ["| %(comparison)s | %(hook)s | %(events)d | %(agree)d | %(expected)d | %(disagree)d |" % s
              for s in summary]
    lines += ["", "## Disagreements (%d)" % len(rep.disagree), ""]
    if rep.disagree:
        lines += ["| comparison | scenario | key | why | BPF | kernel |", "|---|---|---|---|---|---|"]
        lines += ["| %s | %s | %s | %s | `%s` | `%s` |" % (d["comparison"], d["scenario"], d["key"],
                  d.get("why", ""), json.dumps(d.get("bpf")), json.dumps(d.get("kernel")))
                  for d in rep.disagree]
    lines += ["", "## Expected divergences (%d)" % len(rep.expected), ""]
    by_id = {}
    for e in rep.expected:
        by_id.setdefault(e["id"], []).append(e)
    for rid, items in sorted(by_id.items()):
        lines += ["- **%s** (%d events): %s" % (rid, len(items), items[0]["reason"])]
        lines += ["  - %s (%s)" % (e["scenario"], e.get("why", "")) for e in items[:10]]
        if len(items) > 10:
            lines.append("  - ... %d more in report.json" % (len(items) - 10))
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return summary


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    run, expected, out = sys.argv[1:]
    reasons = {}
    with open(expected) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                rid, _, reason = (p.strip() for p in line.split("|", 2))
                reasons[rid] = reason
    with open(os.path.join(run, "run.json")) as f:
        meta = json.load(f)
    rep = Report()
    meta["workload_events"] = shadow(run, rep, reasons)
    if meta.get("which") == "all":
        swap(run, rep, reasons)
    summary = write_reports(out, rep, meta)
    print("%-7s %-13s %7s %7s %9s %9s" % ("", "hook", "events", "agree", "expected", "disagree"))
    for s in summary:
        print("%-7s %-13s %7d %7d %9d %9d" % (s["comparison"], s["hook"], s["events"],
                                              s["agree"], s["expected"], s["disagree"]))
    for d in rep.disagree[:20]:
        print("DISAGREE %s %s [%s] %s\n  bpf:    %s\n  kernel: %s" % (
            d["comparison"], d["scenario"], d["key"], d.get("why", ""),
            json.dumps(d.get("bpf")), json.dumps(d.get("kernel"))))
    if len(rep.disagree) > 20:
        print("... %d more disagreements in %s" % (len(rep.disagree) - 20, out))
    print("%d unexpected disagreements, %d expected divergences; seed %s; report in %s" % (
        len(rep.disagree), len(rep.expected), meta.get("seed"), out))
    sys.exit(1 if rep.disagree else 0)


if __name__ == "__main__":
    main()
