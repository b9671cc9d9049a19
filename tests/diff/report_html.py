#!/usr/bin/env python3
"""One self-contained HTML page of a differential's or a campaign's report.

    report_html.py DIR

Reads DIR/report.json (tests/diff/compare.py's, or tests/diff/campaign.py's)
and writes DIR/report.html: the summary, the agreement table and its plot,
and then, for a run, the coverage, condition and per-capability battery
tables and the disagreements; for a campaign, the signatures and the seeds
with a plot of events a guest second. Plots are gnuplot SVG, inlined; the
page loads nothing at view time. Every figure in it is report.json's.
"""
import html
import json
import os
import subprocess
import sys
import tempfile

STYLE = """body{font-family:sans-serif;margin:2em;max-width:80em}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #999;padding:2px 6px}
td.n{text-align:right}th{background:#eee}.bad{background:#fdd}"""


def esc(v):
    return html.escape("" if v is None else str(v))


def table(head, rows, bad=lambda row: False):
    out = ["<table><tr>%s</tr>" % "".join("<th>%s</th>" % esc(h) for h in head)]
    for row in rows:
        cells = "".join('<td class="n">%s</td>' % esc(c) if isinstance(c, (int, float))
                        else "<td>%s</td>" % esc(c) for c in row)
        out.append('<tr%s>%s</tr>' % (' class="bad"' if bad(row) else "", cells))
    return "\n".join(out + ["</table>"])


def plot(script, data):
    """gnuplot's SVG of @script over @data (rows of columns), or a note."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "data")
        with open(path, "w") as f:
            f.writelines("\t".join(str(c) for c in row) + "\n" for row in data)
        try:
            svg = subprocess.run(["gnuplot"], input="set terminal svg size 800,360 noenhanced\n"
                                 "set datafile separator '\\t'\n" + script.replace("DATA", path),
                                 capture_output=True, text=True, check=True).stdout
        except (OSError, subprocess.CalledProcessError) as e:
            return "<p>(no plot: gnuplot failed: %s)</p>" % esc(e)
    return svg[svg.find("<svg"):]


def agreement(rep):
    rows = [(s["comparison"], s["hook"], s["events"], s["agree"], s["disagree"], s["expected"])
            for s in rep["summary"]]
    data = [("%s %s" % (r[0], r[1]), 100.0 * (r[3] + r[5]) / r[2] if r[2] else 0) for r in rows]
    svg = plot("set title 'agreement per comparison and hook (agree + expected, %)'\n"
               "set yrange [0:105]\nset style fill solid\nset boxwidth 0.7\n"
               "set xtics rotate by -45\nunset key\n"
               "plot 'DATA' using 0:2:xtic(1) with boxes notitle", data) if data else ""
    return ("<h2>Agreement</h2>" +
            table(("comparison", "hook", "decisions", "agree", "disagree", "expected"), rows,
                  lambda r: r[4] > 0) + svg)


def run_page(rep):
    meta = rep.get("run", {})
    unexpected, expected = len(rep["disagreements"]), len(rep["expected"])
    parts = ["<h1>fcaps differential on Linux %s: seed %s, %s events</h1>" % (
                 esc(meta.get("kernel_line", "?")), esc(meta.get("seed")), esc(meta.get("events"))),
             "<p>%d unexpected disagreements, %d expected divergences, %d coverage holes; "
             "kernel %s (%s), fcapsctl %s, git %s</p>" % (
                 unexpected, expected, len(rep["coverage_failures"]), esc(meta.get("kernel")),
                 esc(meta.get("release")), esc(meta.get("fcapsctl")), esc(meta.get("git"))),
             agreement(rep), "<h2>Coverage</h2>",
             table(("branch", "catalogue", "random", "what"),
                   [(c["branch"], c["catalogue"], c["random"], c["note"])
                    for c in rep["coverage"]]),
             "<h2>Conditions (independence pairs)</h2>",
             table(("rule", "condition", "pairs"),
                   [(c["rule"], c["condition"], c["pairs"]) for c in rep["conditions"]]),
             "<h2>Battery, per capability</h2>",
             table(("capability", "op", "after", "events", "agree", "disagree", "excused",
                    "kernel", "bpf"),
                   [(b["capability"], b["op"], b.get("after"), b["events"], b["agree"],
                     b["disagree"], b["excused"], b["kernel"], b["bpf"]) for b in rep["battery"]],
                   lambda r: r[5] > 0),
             "<h2>Disagreements</h2>",
             table(("comparison", "hook", "event", "why", "replay"),
                   [(d.get("comparison"), d.get("hook"), d.get("event"), d.get("why"),
                     d.get("reproduce")) for d in rep["disagreements"]])]
    return parts


def reduced(red):
    """A signature's smallest event (reduce.py), or why there is none"""
    if not red:
        return "not tried"
    if red.get("status") != "reduced":
        return "%s: %s" % (red.get("status"), red.get("why", ""))
    return "%s (%d steps); %s" % (red["event"], red["steps"], red["replay"])


def campaign_page(rep):
    seeds = rep["seeds"]
    ran = [s for s in seeds if s["status"] in (0, 1)]
    parts = ["<h1>fcaps campaign on Linux %s: %d seeds</h1>" % (
                 esc(", ".join(rep.get("kernel_lines") or ["?"])), len(seeds)),
             "<p>%d seeds ran (%d clean), %d random events, %d events in the guests, %s a "
             "guest second, %s s wall; %d signatures, %d harness errors</p>" % (
                 len(ran), sum(s["status"] == 0 for s in ran), rep["events"],
                 rep.get("workload_events") or 0, esc(rep.get("events_per_guest_second")),
                 esc(rep.get("wall_seconds")), len(rep["signatures"]), len(rep["harness"])),
             agreement(rep), "<h2>Disagreements by signature</h2>",
             table(("signature", "hooks", "count", "seeds", "example", "replay", "reduced"),
                   [(s["signature"], ", ".join(s["hooks"]), s["count"],
                     ",".join(map(str, s["seeds"])), s["example"]["event"],
                     s["example"]["reproduce"], reduced(s.get("reduced")))
                    for s in rep["signatures"]]),
             "<h2>Seeds</h2>",
             table(("seed", "status", "random events", "guest events", "guest s"),
                   [(s["seed"], s["status"], s.get("events"), s.get("workload_events"),
                     s.get("guest_seconds")) for s in seeds], lambda r: r[1] not in (0,))]
    data = [(s["seed"], s["workload_events"] / s["guest_seconds"]) for s in seeds
            if s.get("guest_seconds") and s.get("workload_events")]
    if data:
        parts.append(plot("set title 'events a guest second, by seed'\nunset key\n"
                          "set yrange [0:*]\nset xtics 1\n"
                          "plot 'DATA' using 1:2 with linespoints notitle", data))
    parts += ["<h2>Harness errors</h2>", table(("error",), [(h,) for h in rep["harness"]])]
    return parts


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: report_html.py DIR")
    out = sys.argv[1]
    with open(os.path.join(out, "report.json")) as f:
        rep = json.load(f)
    parts = campaign_page(rep) if "signatures" in rep else run_page(rep)
    page = ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>fcaps report</title>"
            "<style>%s</style></head><body>\n%s\n</body></html>\n" % (STYLE, "\n".join(parts)))
    with open(os.path.join(out, "report.html"), "w") as f:
        f.write(page)
    print("HTML report in %s/report.html" % out)


if __name__ == "__main__":
    main()
