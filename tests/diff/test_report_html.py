#!/usr/bin/env python3
"""Host test of tests/diff/report_html.py (and lines.py, two runs side by
side) on crafted reports, a run's and a campaign's: every figure of report.json is in the page's tables, in its
row; the page loads nothing (no src, href, script, link or import); text
from the run is escaped; a plot is inlined. TAP (tests/lib/tap.py).
"""
import copy
import html.parser
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import tap  # noqa: E402

EVIL = "exec: <script>alert(1)</script> & co"
SUMMARY = [{"comparison": "shadow", "hook": "exec", "events": 120, "agree": 117, "disagree": 1,
            "expected": 2},
           {"comparison": "swap", "hook": "kill", "events": 40, "agree": 40, "disagree": 0,
            "expected": 0}]
RUN = {"run": {"seed": 3, "events": 100, "kernel": "patched-6.12", "fcapsctl": "fcapsctl", "git": "x",
               "release": "6.12.118", "kernel_line": "6.12"},
       "summary": SUMMARY,
       "disagreements": [{"comparison": "shadow", "hook": "exec", "event": EVIL,
                          "why": "differs in pe", "reproduce": "make diff SEED=3 ONLY='x'"}],
       "expected": [{}, {}], "coverage_failures": [],
       "coverage": [{"branch": "exec/rule-off", "catalogue": 5, "random": 112, "note": "2: off"}],
       "conditions": [{"rule": "exec: AT_SECURE", "condition": "fE is not empty", "pairs": 17}],
       "battery": [{"capability": "CAP_NET_RAW", "op": "net_raw", "after": "exec", "events": 2025,
                    "agree": 1792,
                    "disagree": 0, "excused": 233, "kernel": 1002, "bpf": 769}]}
CAMPAIGN = {"seeds": [{"seed": 1, "status": 1, "events": 60, "workload_events": 900,
                       "guest_seconds": 30},
                      {"seed": 2, "status": 0, "events": 60, "workload_events": 880,
                       "guest_seconds": 32}],
            "events": 120, "workload_events": 1780, "events_per_guest_second": 28.7,
            "wall_seconds": 40, "summary": SUMMARY, "harness": [], "coverage_holes": {},
            "kernel_lines": ["6.12"],
            "signatures": [{"signature": "shadow | the kill rule | ret", "hooks": ["kill", "sigio"],
                            "count": 37, "seeds": [1, 2],
                            "example": {"seed": 1, "event": EVIL, "why": "differs in ret",
                                        "reproduce": "tests/diff/run --seed 1 --only 'x'"},
                            "reduced": {"status": "reduced", "steps": 1, "runs": 4,
                                        "event": "reduced: kill /tmp/fc/v1_kill uid 0 -> "
                                                 "/tmp/fc/plain uid 1000 sig 15",
                                        "replay": "make diff ONLY='reduced: kill ...'"}}]}


class Page(html.parser.HTMLParser):
    """The page's tables as rows of cell texts, its tags and attributes."""

    def __init__(self):
        super().__init__()
        self.tables, self.tags, self.attrs, self.cell = [], set(), set(), None

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.attrs.update(a for a, _ in attrs)
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self.cell = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.tables[-1][-1].append(self.cell)
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


def render(rep):
    tmp = tempfile.mkdtemp(prefix="fcaps-test-html-")
    with open(os.path.join(tmp, "report.json"), "w") as f:
        json.dump(rep, f)
    p = subprocess.run([sys.executable, os.path.join(HERE, "report_html.py"), tmp],
                       capture_output=True, text=True)
    if p.returncode:
        return None, p.stderr
    with open(os.path.join(tmp, "report.html")) as f:
        text = f.read()
    page = Page()
    page.feed(text)
    return page, text


def has_row(page, cells):
    want = [str(c) for c in cells]
    return any(row == want for t in page.tables for row in t)


def lines_table():
    """tests/diff/lines.py on RUN (6.12) and a 6.1 run with one more miss
    and no swap kill row; its Markdown, or None"""
    other = copy.deepcopy(RUN)
    other["run"].update(release="6.1.192", kernel_line="6.1")
    other["summary"] = [dict(SUMMARY[0], agree=116)]
    dirs = []
    for rep in (RUN, other):
        dirs.append(tempfile.mkdtemp(prefix="fcaps-test-lines-"))
        with open(os.path.join(dirs[-1], "report.json"), "w") as f:
            json.dump(rep, f)
    p = subprocess.run([sys.executable, os.path.join(HERE, "lines.py")] + dirs,
                       capture_output=True, text=True)
    return None if p.returncode else p.stdout


def check(name, ok, diag=()):
    if tap.selected(name):
        tap.result(ok, name, diag)


def main():
    for kind, rep in (("run", RUN), ("campaign", CAMPAIGN)):
        page, text = render(rep)
        check("a %s's report renders" % kind, page is not None, [] if page else [str(text)])
        if page is None:
            continue
        rows = [[s["comparison"], s["hook"], s["events"], s["agree"], s["disagree"],
                 s["expected"]] for s in SUMMARY]
        check("%s: every agreement row is in the page" % kind,
              all(has_row(page, r) for r in rows))
        check("%s: the page loads nothing" % kind,
              not ({"script", "link", "img", "iframe"} & page.tags) and
              not ({"src", "href"} & page.attrs) and "@import" not in text)
        check("%s: the run's text is escaped, and shown" % kind,
              "<script>alert" not in text and
              any(EVIL in c for t in page.tables for row in t for c in row))
        check("%s: a plot is inlined" % kind, "svg" in page.tags)
        check("%s: the title names the kernel line" % kind, "on Linux 6.12:" in text)
        changed = copy.deepcopy(rep)
        changed["summary"][0]["agree"] = 116
        other, _ = render(changed)
        check("%s: a changed figure changes the page" % kind,
              other is not None and not has_row(other, rows[0]))
    page, _ = render(RUN)
    check("run: coverage, condition and battery rows are in the page", page is not None and
          has_row(page, ["exec/rule-off", 5, 112, "2: off"]) and
          has_row(page, ["exec: AT_SECURE", "fE is not empty", 17]) and
          has_row(page, ["CAP_NET_RAW", "net_raw", "exec", 2025, 1792, 0, 233, 1002, 769]))
    text = lines_table()
    want = [row for row in (
              "# The differential on two kernel lines: 6.12 / 6.1",
              "| shadow | exec | 120 / 120 | 117 / 116 | 2 / 2 | 1 / 1 |",
              "| swap | kill | 40 / - | 40 / - | 0 / - | 0 / - |",
              "| CAP_NET_RAW | net_raw | exec | 2025 / 2025 | 1792 / 1792 | 233 / 233 | 0 / 0 "
              "| 1002 / 1002 | 769 / 769 |",
              "| exec/rule-off | 117 / 117 |") if text is None or row not in text]
    check("lines: two runs side by side, a cell for each line", not want,
          ["missing: %s" % want, text or "lines.py failed"] if want else [])
    page, _ = render(CAMPAIGN)
    check("campaign: signatures, their reductions and seeds are in the page", page is not None and
          has_row(page, ["shadow | the kill rule | ret", "kill, sigio", 37, "1,2", EVIL,
                         "tests/diff/run --seed 1 --only 'x'",
                         "reduced: kill /tmp/fc/v1_kill uid 0 -> /tmp/fc/plain uid 1000 sig 15 "
                         "(1 steps); make diff ONLY='reduced: kill ...'"]) and
          has_row(page, [1, 1, 60, 900, 30]) and has_row(page, [2, 0, 60, 880, 32]))
    return tap.finish()


if __name__ == "__main__":
    sys.exit(main())
