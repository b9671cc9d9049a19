#!/usr/bin/env python3
"""Merge a campaign's seeds (tests/diff/campaign) into one report.

    campaign.py DIR SEED...

DIR/seed-N/report.json is each seed's differential (tests/diff/run), DIR/joblog
GNU parallel's record of how each ended. Disagreements are grouped by
signature: the comparison, the hook, the fields that differ and the reason
with its numbers taken out, so that one wrong rule is one line however many
seeds and events it shows in. Writes DIR/report.json and DIR/report.md.
Exit: 0 every seed ran clean, 1 disagreements or coverage holes, 2 a seed
whose run failed or left no report.
"""
import glob
import json
import os
import re
import sys


# The rule that decides each hook's (or event kind's) calls: SEMANTICS 2-3, 7
RULE = {"exec": "the exec rules", "kill": "the kill rule", "prlimit": "the kill rule",
        "sigio": "the kill rule", "xinit": "the kill rule", "sigchld": "the kill rule",
        "setnice": "the scheduling rule", "setscheduler": "the scheduling rule",
        "setioprio": "the scheduling rule", "sched": "the scheduling rule",
        "xattr": "the xattr guard", "caps": "the ceiling"}


def signature(item):
    """comparison | rule | differing fields | the comparison's own reason
    (swap's "not excused: ..."), numbers taken out"""
    reason = re.search(r"\((not excused: [^)]*)\)", item.get("why", ""))
    why = item.get("why", "") if not item.get("fields") else reason.group(1) if reason else ""
    return " | ".join((item.get("comparison") or "?",
                       RULE.get(item.get("hook"), item.get("hook") or "?"),
                       ",".join(sorted(item.get("fields") or [])),
                       re.sub(r"0x[0-9a-fA-F]+|-?\d+", "N", why))).rstrip(" |")


def joblog(path):
    """{seed: (exit status, seconds)} from parallel's --joblog"""
    ended = {}
    if not os.path.exists(path):
        return ended
    with open(path) as f:
        for line in f.read().splitlines()[1:]:
            cols = line.split("\t")
            if len(cols) >= 9:
                ended[cols[8].split(" --seed ")[1].split()[0]] = (int(cols[6]), float(cols[3]))
    return ended


def guest_seconds(log):
    try:
        with open(log) as f:
            m = re.search(r"^guest run: (\d+) s", f.read(), re.M)
        return int(m.group(1)) if m else None
    except OSError:
        return None


def merge(out, seeds):
    ended = joblog(os.path.join(out, "joblog"))
    rep = {"seeds": [], "events": 0, "summary": {}, "signatures": {}, "harness": [],
           "coverage_holes": {}, "kernel_lines": []}
    for seed in seeds:
        rc, secs = ended.get(seed, (None, None))
        row = {"seed": int(seed), "status": rc, "seconds": secs,
               "guest_seconds": guest_seconds(os.path.join(out, "seed-%s.log" % seed))}
        rep["seeds"].append(row)
        path = os.path.join(out, "seed-%s" % seed, "report.json")
        if rc is None:
            rep["harness"].append("seed %s: not run (the campaign did not reach it)" % seed)
            continue
        if rc not in (0, 1) or not os.path.exists(path):
            rep["harness"].append("seed %s: the run failed (status %s); see seed-%s.log" %
                                  (seed, rc, seed))
            continue
        with open(path) as f:
            r = json.load(f)
        row["events"] = r["run"].get("events", 0)
        line = r["run"].get("kernel_line")
        if line and line not in rep["kernel_lines"]:
            rep["kernel_lines"].append(line)
        # every event each phase ran (catalogue and random): the guests' work
        row["workload_events"] = 0
        for name in glob.glob(os.path.join(out, "seed-%s" % seed, "raw", "*.jsonl")):
            with open(name) as f:
                row["workload_events"] += sum(1 for line in f if '"name"' in line)
        rep["events"] += row["events"]
        for s in r["summary"]:
            k = "%s %s" % (s["comparison"], s["hook"])
            t = rep["summary"].setdefault(k, {"comparison": s["comparison"], "hook": s["hook"],
                                              "events": 0, "agree": 0, "disagree": 0,
                                              "expected": 0})
            for f in ("events", "agree", "disagree", "expected"):
                t[f] += s[f]
        for d in r["disagreements"]:
            sig = rep["signatures"].setdefault(signature(d), {
                "signature": signature(d), "comparison": d.get("comparison"),
                "hooks": [], "fields": sorted(d.get("fields") or []), "count": 0,
                "seeds": [], "example": {"seed": int(seed), "event": d.get("event"),
                                         "why": d.get("why"), "reproduce": d.get("reproduce")}})
            if "random_example" not in sig and (d.get("event") or "").startswith("random#"):
                # what reduce.py shrinks: a random event (catalogue rows are made by hand)
                sig["random_example"] = {"seed": int(seed), "event": d["event"]}
            sig["count"] += 1
            if d.get("hook") not in sig["hooks"]:
                sig["hooks"].append(d.get("hook"))
            if int(seed) not in sig["seeds"]:
                sig["seeds"].append(int(seed))
        for h in r.get("coverage_failures", []):
            rep["coverage_holes"].setdefault(str(h), []).append(int(seed))
        rep["harness"] += ["seed %s: %s" % (seed, h) for h in r.get("harness_errors", [])]
    rep["summary"] = sorted(rep["summary"].values(), key=lambda s: (s["comparison"], s["hook"]))
    rep["signatures"] = sorted(rep["signatures"].values(), key=lambda s: -s["count"])
    timed = [s for s in rep["seeds"] if s.get("guest_seconds") and s.get("workload_events")]
    rep["workload_events"] = sum(s["workload_events"] for s in timed)
    rep["events_per_guest_second"] = round(
        rep["workload_events"] / sum(s["guest_seconds"] for s in timed), 1) if timed else None
    try:
        with open(os.path.join(out, "wall-seconds")) as f:
            rep["wall_seconds"] = int(f.read())
    except (OSError, ValueError):
        rep["wall_seconds"] = None
    return rep


def markdown(rep):
    ran = [s for s in rep["seeds"] if s["status"] in (0, 1)]
    lines = ["# Campaign on Linux %s" % (", ".join(rep.get("kernel_lines") or ["?"])), "",
             "%d seeds asked, %d ran (%d clean), %d random events; the guests ran %d events "
             "(catalogue and random, every phase), %s a guest second; %s s wall" % (
                 len(rep["seeds"]), len(ran), sum(s["status"] == 0 for s in ran), rep["events"],
                 rep["workload_events"], rep["events_per_guest_second"], rep["wall_seconds"]), "",
             "## Agreement", "", "| comparison | hook | decisions | agree | disagree | expected |",
             "|---|---|---:|---:|---:|---:|"]
    lines += ["| %(comparison)s | %(hook)s | %(events)d | %(agree)d | %(disagree)d | %(expected)d |"
              % s for s in rep["summary"]]
    lines += ["", "## Disagreements by signature", ""]
    if not rep["signatures"]:
        lines.append("none")
    for i, s in enumerate(rep["signatures"], 1):
        ex = s["example"]
        lines += ["%d. **%s** — %d disagreements (%s) in seeds %s" % (
            i, s["signature"], s["count"], ", ".join(s["hooks"]), ",".join(map(str, s["seeds"]))),
            "   - e.g. seed %d, `%s`: %s" % (ex["seed"], ex["event"], ex["why"]),
            "   - replay: `%s`" % ex["reproduce"]]
        red = s.get("reduced")
        if red and red.get("status") == "reduced":
            lines += ["   - reduced (%d steps, %d guest runs): `%s`" % (
                red["steps"], red["runs"], red["event"]),
                "     replay: `%s`" % red["replay"], "     catalogue: %s" % red["catalogue"]]
        elif red:
            lines.append("   - not reduced: %s (%s)" % (red["status"], red.get("why", "")))
    for h, seeds in sorted(rep["coverage_holes"].items()):
        lines.append("- coverage hole in seeds %s: %s" % (",".join(map(str, seeds)), h))
    lines += ["", "## Harness errors", ""] + (["- " + h for h in rep["harness"]] or ["none"])
    return "\n".join(lines) + "\n"


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: campaign.py DIR SEED...")
    out, seeds = sys.argv[1], sys.argv[2:]
    rep = merge(out, seeds)
    with open(os.path.join(out, "report.json"), "w") as f:
        json.dump(rep, f, indent=1, sort_keys=True)
    text = markdown(rep)
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write(text)
    print(text, end="")
    print("report in %s/report.md" % out)
    if rep["harness"]:
        sys.exit(2)
    sys.exit(1 if rep["signatures"] or rep["coverage_holes"] else 0)


if __name__ == "__main__":
    main()
