#!/usr/bin/env python3
"""Where a differential's guest time goes, from a run's workload lines.

    profile.py RUN-DIR

Each event line (fcaps_workload) carries t_us, when its work ended; from
one line to the next is what the next event cost, its fork, setup and
waits included. Per phase (each raw/*.jsonl) and per event kind and focus:
events, seconds, milliseconds an event, share of the phase; and the phase's
events a second; and each guest's steps (steps-WHICH.txt: loading BPF,
the workload, dumping maps) as diff.sh timed them.
"""
import collections
import glob
import json
import os
import sys


def phase(path):
    with open(path) as f:
        events = [json.loads(line) for line in f if line.startswith("{")]
    events = [e for e in events if isinstance(e.get("t_us"), int)]
    events.sort(key=lambda e: e["t_us"])
    cost = collections.defaultdict(lambda: [0, 0])
    for prev, e in zip(events, events[1:]):
        what = "catalogue" if not e["name"].startswith(("random#", "reduced")) else \
            "%s/%s" % (e["kind"], e.get("focus", "-"))
        cost[what][0] += 1
        cost[what][1] += e["t_us"] - prev["t_us"]
    total = sum(us for _, us in cost.values())
    return len(events), total, cost


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: profile.py RUN-DIR")
    run = sys.argv[1]
    raw = os.path.join(run, "raw") if os.path.isdir(os.path.join(run, "raw")) else run
    try:
        with open(os.path.join(raw, "run.json")) as f:
            meta = json.load(f)
        print("run: shadow phase %s s, swap phases %s s (guest clock), %s random events" % (
            meta.get("shadow_s"), meta.get("swap_s"), meta.get("events")))
    except (OSError, ValueError):
        pass
    for path in sorted(glob.glob(os.path.join(raw, "steps-*.txt"))):
        # diff.sh's steps, each guest's: seconds from the step before
        with open(path) as f:
            marks = [line.split(" ", 1) for line in f.read().splitlines() if " " in line]
        if not marks:       # a guest that died before its first step
            continue
        print("\n%s (guest uptime %s s at start):" % (os.path.basename(path), marks[0][0]))
        for (t0, _), (t1, what) in zip(marks, marks[1:]):
            print("  %6.1f s  %s" % (float(t1) - float(t0), what))
    for path in sorted(glob.glob(os.path.join(raw, "*.jsonl"))):
        n, total, cost = phase(path)
        if n < 2 or not total:
            continue
        print("\n%s: %d events, %.1f s, %.1f events/s" % (
            os.path.basename(path), n, total / 1e6, (n - 1) / (total / 1e6)))
        print("| kind/focus | events | s | ms/event | share |\n|---|---:|---:|---:|---:|")
        for what, (k, us) in sorted(cost.items(), key=lambda kv: -kv[1][1])[:15]:
            print("| %s | %d | %.1f | %.1f | %.0f%% |" % (what, k, us / 1e6, us / 1e3 / k,
                                                        100.0 * us / total))


if __name__ == "__main__":
    main()
