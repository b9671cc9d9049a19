#!/usr/bin/env python3
"""The benchmark on two kernel lines side by side (make bench-lines).

tests/bench/lines.py REPORT.json REPORT.json: two icount reports
of tests/bench/run (make bench, make bench KVER=6.12), one table. Each
line's ratios are to its own `off` mode in its own boot, so the two lines
compare as ratios; absolute instruction counts differ with the kernel's
code and are given for `off` only.
"""
import json
import sys

MODES = ("kernel", "floor", "enforce-norec", "enforce-rec", "shadow")


def load(path):
    with open(path) as f:
        rep = json.load(f)
    if rep.get("guest", {}).get("clock") != "icount":
        sys.exit("%s: not an instruction-clock report (tests/bench/run --clock icount)" % path)
    cells = {(s["what"], s["mode"]): s for s in rep["stats"] if s.get("unit") == "ns/op"}
    return rep["guest"].get("release", "?"), cells


def cell(cells, what, mode):
    s = cells.get((what, mode))
    if not s or s.get("timeout") or not s.get("ratio_off"):
        return ""
    return "%.2f×" % s["ratio_off"]


def table(reports):
    """One row a benchmark; each cell holds both lines, "6.1 / 6.12"."""
    whats = []
    for _, cells in reports:
        for what, mode in cells:
            if mode == "off" and what not in whats:
                whats.append(what)
    head = ["what", "off"] + list(MODES)
    lines = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
    for what in whats:
        offs = [cells.get((what, "off")) for _, cells in reports]
        row = [what, " / ".join("%.0f ns" % o["median"] if o else "-" for o in offs)]
        row += [" / ".join(cell(cells, what, m) or "-" for _, cells in reports) for m in MODES]
        lines.append("| " + " | ".join(row) + " |")
    return lines


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: tests/bench/lines.py REPORT.json REPORT.json")
    reports = [load(p) for p in sys.argv[1:3]]
    md = ["# fcaps benchmark on two kernel lines (instruction clock)", "",
          "Each cell: %s / %s. Ratios to `off` of the same line, measured in one boot "
          "per line (%s, %s); `off` in guest nanoseconds, i.e. instructions." % (
              reports[0][0], reports[1][0], sys.argv[1], sys.argv[2]),
          ""] + table(reports)
    text = "\n".join(md) + "\n"
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
