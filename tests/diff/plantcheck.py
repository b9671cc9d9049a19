#!/usr/bin/env python3
"""The self-check's judge (tests/diff/selfcheck).

  plantcheck.py --list PLANTS            NAME<TAB>path<TAB>needs-swap, a plant a line
  plantcheck.py PLANTS NAME OUTDIR RC    PASS/FAIL line for one plant's run

A plant is caught when the run exited 1 and, in each comparison its row
names, some disagreement is on one of its hooks, differs in one of its
fields and (when the row says) names an event containing its substring.
"""
import fnmatch
import json
import os
import sys

COMPARISONS = ("shadow", "observed", "swap", "norec")
SCHED = ("setscheduler", "setnice", "setioprio")


class BadTable(Exception):
    pass


def split(cell, sep=","):
    return [w.strip() for w in cell.split(sep) if w.strip()]


def read_plants(path):
    plants = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            cells = [c.strip() for c in line.rstrip("\n").split("|")]
            if len(cells) == 5:
                cells.append("")
            if len(cells) != 6 or not all(cells[:5]):
                raise BadTable("%s:%d: want 'NAME | path | comparison | hook | fields | catch'" % (path, n))
            name, where, comp, hooks, fields, catch = cells
            comps = ["shadow", "swap"] if comp == "both" else split(comp, "+")
            if where not in ("bpf", "kernel") or not comps or set(comps) - set(COMPARISONS):
                raise BadTable("%s:%d: path is bpf|kernel, comparison shadow|observed|swap|norec|both"
                               % (path, n))
            if name in plants:
                raise BadTable("%s:%d: plant %s twice" % (path, n, name))
            plants[name] = {"path": where, "comparisons": comps, "hooks": split(hooks),
                            "fields": split(fields), "catch": catch}
    return plants


def hook_matches(want, hook):
    return hook == want or (want == "sched" and hook in SCHED + ("sched",))


def judge(plant, name, out, rc):
    path = os.path.join(out, "report.json")
    if rc == 2:
        return False, "plant %s: harness error (status 2), see %s" % (name, out)
    if not os.path.exists(path):
        return False, "plant %s: no report (status %s)" % (name, rc)
    with open(path) as f:
        report = json.load(f)
    if rc != 1:
        return False, "plant %s not caught: the run exited %s" % (name, rc)
    def named(d):
        return {f for f in d.get("fields") or () if any(fnmatch.fnmatchcase(f, pat)
                                                         for pat in plant["fields"])}
    found, fields, misses = 0, set(), []
    for comp in plant["comparisons"]:
        hits = [d for d in report.get("disagreements", [])
                if d.get("comparison") == comp
                and any(hook_matches(h, d.get("hook")) for h in plant["hooks"])
                and named(d)
                and plant["catch"] in (d.get("event") or d.get("scenario") or "")]
        if not hits:
            misses.append(comp)
        found += len(hits)
        for d in hits:
            fields |= named(d)
    if misses:
        others = len(report.get("disagreements", []))
        return False, ("plant %s not caught by %s (%d other disagreements; wanted %s on %s%s)" % (
            name, "+".join(misses), others, ",".join(plant["fields"]), ",".join(plant["hooks"]),
            ", event ~ %r" % plant["catch"] if plant["catch"] else ""))
    return True, "plant %s caught (%d disagreements on %s)" % (name, found, ",".join(sorted(fields)))


def main(argv):
    try:
        if len(argv) == 3 and argv[1] == "--list":
            for name, p in read_plants(argv[2]).items():
                print("%s\t%s\t%d" % (name, p["path"], bool({"swap", "norec"} & set(p["comparisons"]))))
            return 0
        if len(argv) != 5:
            print(__doc__, file=sys.stderr)
            return 2
        plants = read_plants(argv[1])
        name, out, rc = argv[2], argv[3], int(argv[4])
        if name not in plants:
            print("FAIL: plant %s has no row in %s" % (name, argv[1]))
            return 1
        ok, msg = judge(plants[name], name, out, rc)
        print("%s: %s" % ("PASS" if ok else "FAIL", msg))
        return 0 if ok else 1
    except (OSError, ValueError, BadTable) as e:
        print("FAIL: plantcheck: %s" % e)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
