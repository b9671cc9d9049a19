#!/usr/bin/env python3
"""Two differential reports side by side, one a kernel line (make diff-lines).

tests/diff/lines.py DIR_A DIR_B: the report.json of two runs of
tests/diff/run (make diff, make diff KVER=6.12), compared where the lines
can differ: agreement per comparison and hook, expected divergences per
rule (expected.txt's id) and hook, the capability battery, coverage.
A row only one line has shows "-" on the other.
"""
import collections
import json
import os
import sys


def load(d):
    with open(os.path.join(d, "report.json")) as f:
        rep = json.load(f)
    return rep.get("run", {}).get("kernel_line", "?"), rep


def pair(a, b, fmt="%s"):
    return " / ".join("-" if v is None else fmt % v for v in (a, b))


def agreement(reps):
    rows = collections.OrderedDict()
    for i, (_, rep) in enumerate(reps):
        for s in rep["summary"]:
            rows.setdefault((s["comparison"], s["hook"]), [None, None])[i] = s
    out = ["## Agreement", "", "| comparison | hook | events | agree | expected | disagree |",
           "|---|---|---:|---:|---:|---:|"]
    for (comp, hook), (a, b) in rows.items():
        out.append("| %s | %s | %s |" % (comp, hook, " | ".join(
            pair(a and a[f], b and b[f]) for f in ("events", "agree", "expected", "disagree"))))
    return out


def expected(reps):
    counts = collections.OrderedDict()
    for i, (_, rep) in enumerate(reps):
        for e in rep["expected"]:
            key = (e.get("id"), e.get("comparison"), e.get("hook"))
            why = e.get("reason", "").split(". ")[0].rstrip(".")
            counts.setdefault(key, [0, 0, why])[i] += 1
    out = ["## Expected divergences, per rule and hook", "",
           "| rule (expected.txt) | comparison | hook | count | why |", "|---|---|---|---:|---|"]
    for (rid, comp, hook), (a, b, why) in sorted(counts.items(), key=lambda kv: -sum(kv[1][:2])):
        out.append("| %s | %s | %s | %s | %s |" % (rid, comp, hook, pair(a, b), why))
    if not counts:
        out.append("| none | | | | |")
    return out


def battery(reps):
    rows = collections.OrderedDict()
    for i, (_, rep) in enumerate(reps):
        for r in rep.get("battery", []):
            rows.setdefault((r["capability"], r["op"], r.get("after", "")), [None, None])[i] = r
    out = ["## What a capped process could do, per capability", "",
           "| capability | op | after | events | agree | excused | disagree | kernel allowed "
           "| BPF allowed |", "|---|---|---|---:|---:|---:|---:|---:|---:|"]
    for (cap, op, after), (a, b) in rows.items():
        out.append("| %s | %s | %s | %s |" % (cap, op, after, " | ".join(
            pair(a and a[f], b and b[f])
            for f in ("events", "agree", "excused", "disagree", "kernel", "bpf"))))
    return out


def coverage(reps):
    rows = collections.OrderedDict()
    for i, (_, rep) in enumerate(reps):
        for c in rep["coverage"]:
            rows.setdefault(c["branch"], [None, None])[i] = c["catalogue"] + c["random"]
    holes = [len(rep["coverage_failures"]) for _, rep in reps]
    out = ["## Coverage (catalogue + random events a branch)", "",
           "coverage holes: %s" % pair(*holes), "", "| branch | events |", "|---|---:|"]
    out += ["| %s | %s |" % (b, pair(a, c)) for b, (a, c) in rows.items()]
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: tests/diff/lines.py DIR_A DIR_B")
    try:
        reps = [load(d) for d in sys.argv[1:3]]
    except (OSError, ValueError, KeyError) as e:
        sys.exit("tests/diff/lines.py: %s" % e)
    head = ["# The differential on two kernel lines: %s / %s" % (reps[0][0], reps[1][0]), ""]
    for d, (line, rep) in zip(sys.argv[1:3], reps):
        run = rep.get("run", {})
        head.append("- %s: %s, seed %s, %s random events, %d unexpected disagreements, git %s" % (
            line, d, run.get("seed"), run.get("events"), len(rep["disagreements"]),
            run.get("git")))
    head += ["", "Each cell: %s / %s." % (reps[0][0], reps[1][0]), ""]
    text = "\n".join(head + agreement(reps) + [""] + expected(reps) + [""] + battery(reps) +
                     [""] + coverage(reps)) + "\n"
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
