#!/usr/bin/env python3
"""The HTML report as a browser shows it. TAP (tests/lib/tap.py).

    test_report_browser.py [DIR...]

Renders test_report_html.py's crafted reports (a run's, a campaign's) and each
DIR/report.json, in a temporary copy, with this tree's report_html.py; opens
each page in headless chromium (vmconfig/install-deps), offline. The
screenshot is a 1280-pixel-wide PNG, not blank; the rendered DOM loads
nothing; every figure of its visible text is report.json's, a check a figure
or row. On the crafted reports, a figure changed in report.json fails its
check. No chromium is a failure, not a skip.
"""
import copy
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import report_html  # noqa: E402
import test_report_html as crafted  # noqa: E402  (its reports, Page, check; tap)
import tap  # noqa: E402

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--host-resolver-rules=MAP * ~NOTFOUND"]
HIDDEN = {"head", "style", "script", "title", "desc"}
LOADS = {"src", "href", "xlink:href", "srcset", "data", "poster", "action", "formaction"}
AGREEMENT = ("comparison", "hook", "decisions", "agree", "disagree", "expected")
SUMMARY = ("comparison", "hook", "events", "agree", "disagree", "expected")  # its report.json keys


def check(name, ok, diag=()):
    crafted.check(name, ok, [] if ok else diag)


class Dom(crafted.Page):
    """The rendered DOM: its tables (Page's), its visible text, what it loads."""

    def __init__(self, text):
        super().__init__()
        self.words, self.hidden, self.loads = [], 0, []
        self.feed(text)
        self.text = " ".join(" ".join(self.words).split())

    def handle_starttag(self, tag, attrs):
        super().handle_starttag(tag, attrs)
        self.hidden += tag in HIDDEN
        self.loads += ["<%s %s=%s>" % (tag, a, v) for a, v in attrs
                       if a in LOADS and not (v or "").startswith("#")]
        self.loads += ["<%s style=%s>" % (tag, v) for a, v in attrs if a == "style" and "url(" in v]

    def handle_endtag(self, tag):
        super().handle_endtag(tag)
        self.hidden -= tag in HIDDEN

    def handle_data(self, data):
        super().handle_data(data)
        if not self.hidden:
            self.words.append(data)
        elif self.lasttag == "style" and re.search(r"@import|url\(", data):
            self.loads.append("<style>%s</style>" % data)


def png(data):
    """(width, rows of pixel bytes) of an 8-bit RGB(A) non-interlaced PNG, or an error."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return "no PNG signature"
    i, idat, head = 8, b"", None
    while i + 8 <= len(data):
        n, kind = struct.unpack(">I4s", data[i:i + 8])
        body, i = data[i + 8:i + 8 + n], i + 12 + n
        head = struct.unpack(">IIBBBBB", body) if kind == b"IHDR" else head
        idat += body if kind == b"IDAT" else b""
    if head is None or head[2] != 8 or head[3] not in (2, 6) or head[6]:
        return "not an 8-bit RGB(A) non-interlaced PNG: IHDR %s" % (head,)
    w, h, bpp = head[0], head[1], 3 if head[3] == 2 else 4
    raw, stride, rows = zlib.decompress(idat), w * bpp, [bytes(w * bpp)]
    lo = int.from_bytes(b"\x7f" * stride, "big")
    for y in range(h):
        f, cur = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        prev = rows[-1]
        if f == 2:  # up, bytewise without carries: the low 7 bits, then the top bit
            a, b = int.from_bytes(cur, "big"), int.from_bytes(prev, "big")
            cur = (((a & lo) + (b & lo)) ^ ((a ^ b) & ~lo)).to_bytes(stride, "big")
        elif f in (1, 3, 4):
            for x in range(stride):
                a, b = cur[x - bpp] if x >= bpp else 0, prev[x]
                c = prev[x - bpp] if x >= bpp else 0
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                p = (a if f == 1 else (a + b) // 2 if f == 3 else
                     a if pa <= pb and pa <= pc else b if pb <= pc else c)
                cur[x] = (cur[x] + p) & 255
        elif f:
            return "row %d: filter %d" % (y, f)
        rows.append(bytes(cur))
    return w, rows[1:]


def chromium(out, *args):
    """Chromium on OUT/report.html with a fresh profile, offline: its screenshot, its DOM."""
    prof = tempfile.mkdtemp(prefix="chromium-", dir=out)
    return subprocess.run(["timeout", "120", "chromium"] + FLAGS + ["--user-data-dir=" + prof] +
                          list(args) + ["file://" + os.path.join(out, "report.html")],
                          capture_output=True, text=True)


def s(v):
    return "" if v is None else str(v)


def figure(dom, name, pattern, want):
    """(name, ok, diag): PATTERN's group in the page's text is report.json's WANT."""
    m = re.search(pattern, dom.text)
    got = m.group(1) if m else None
    return name, got == s(want), ["%s: page %s, report.json %r" % (
        name, repr(got) if m else "has no /%s/" % pattern, s(want))]


def rows(dom, head, keys, want, name, first=0, count=None):
    """(name, ok, diag): the rows of WANT are those of the table whose header
    starts with HEAD from row FIRST on, named by their first KEYS cells; it
    has COUNT rows, unless None."""
    table = next((t[1:] for t in dom.tables if t and t[0][:len(head)] == list(head)), None)
    if table is None:
        return name, False, ["no table headed %s" % " | ".join(head)]
    diag = []
    for i, w in enumerate([s(v) for v in w] for w in want):
        r = table[first + i] if first + i < len(table) else []
        diag += ["row %d (%s) %s: page %r, report.json %r" % (
            first + i + 1, "/".join(w[:keys]), h, a, b)
            for h, a, b in zip(head, r + [None] * len(w), w) if a != b]
    if count is not None and len(table) != count:
        diag.append("%d rows in the page, %d in report.json" % (len(table), count))
    return name, not diag, diag


def whole(dom, head, keys, want, name):
    """rows() of the whole table: WANT's rows and no other."""
    return rows(dom, head, keys, want, name, 0, len(want))


def figures(kind, rep, dom):
    """Every check of the page's figures against report.json: (name, ok, diag)."""
    n = len(rep["summary"])
    out = [rows(dom, AGREEMENT, 2, [], "%s: %d agreement rows" % (kind, n), 0, n)]
    out += [rows(dom, AGREEMENT, 2, [[e[k] for k in SUMMARY]],
                 "%s: agreement %s/%s: decisions, agree, disagree, expected" % (
                     kind, e["comparison"], e["hook"]), i) for i, e in enumerate(rep["summary"])]
    if "signatures" in rep:
        ran, sigs = [x for x in rep["seeds"] if x["status"] in (0, 1)], rep["signatures"]
        out += [figure(dom, "%s: %s" % (kind, f), p, w) for f, p, w in (
            ("kernel lines in the title", r"campaign on Linux (.*?): \d+ seeds",
             ", ".join(rep.get("kernel_lines") or ["?"])),
            ("seeds in the title", r"campaign on Linux .*?: (\d+) seeds", len(rep["seeds"])),
            ("seeds that ran", r"(\d+) seeds ran", len(ran)),
            ("clean seeds", r"seeds ran \((\d+) clean\)", sum(x["status"] == 0 for x in ran)),
            ("random events", r"(\d+) random events,", rep["events"]),
            ("events in the guests", r"(\d+) events in the guests",
             rep.get("workload_events") or 0),
            ("events a guest second", r"guests, (\S*) a guest second",
             rep.get("events_per_guest_second")),
            ("wall seconds", r"guest second, (\S*) s wall", rep.get("wall_seconds")),
            ("signatures", r"(\d+) signatures,", len(sigs)),
            ("harness errors", r"(\d+) harness errors", len(rep["harness"])))]
        head = ("signature", "hooks", "count", "seeds", "example", "replay", "reduced")
        out += [rows(dom, head, 1, [], "%s: %d signature rows" % (kind, len(sigs)), 0, len(sigs))]
        out += [rows(dom, head, 1, [[g["signature"], ", ".join(g["hooks"]), g["count"],
                                     ",".join(map(str, g["seeds"])), g["example"]["event"],
                                     g["example"]["reproduce"],
                                     report_html.reduced(g.get("reduced"))]],
                     "%s: signature %d (%s): hooks, count, seeds, example, reduction" % (
                         kind, i + 1, g["signature"].replace("#", "")[:50]), i)
                for i, g in enumerate(sigs)]
        return out + [
            whole(dom, ("seed", "status", "random events", "guest events", "guest s"), 1,
                  [[x["seed"], x["status"], x.get("events"), x.get("workload_events"),
                    x.get("guest_seconds")] for x in rep["seeds"]],
                  "%s: the seeds table: status, events, guest events and seconds" % kind),
            whole(dom, ("error",), 1, [[h] for h in rep["harness"]],
                  "%s: the harness errors table" % kind)]
    run = rep.get("run", {})
    out += [figure(dom, "%s: %s" % (kind, f), p, w) for f, p, w in (
        ("kernel line in the title", r"differential on Linux (.*?): seed",
         run.get("kernel_line", "?")),
        ("seed in the title", r"differential on Linux .*?: seed (\S*),", run.get("seed")),
        ("events in the title", r": seed \S*, (\S*) events", run.get("events")),
        ("unexpected disagreements", r"(\d+) unexpected disagreements",
         len(rep["disagreements"])),
        ("expected divergences", r"(\d+) expected divergences", len(rep["expected"])),
        ("coverage holes", r"(\d+) coverage holes", len(rep["coverage_failures"])),
        ("kernel", r"coverage holes; kernel (.*?) \(", run.get("kernel")),
        ("kernel release", r"coverage holes; kernel .*? \((.*?)\), fcapsctl",
         run.get("release")))]
    battery = ("capability", "op", "after", "events", "agree", "disagree", "excused", "kernel",
               "bpf")
    return out + [
        whole(dom, ("branch", "catalogue", "random", "what"), 1,
              [[c["branch"], c["catalogue"], c["random"], c["note"]] for c in rep["coverage"]],
              "%s: the coverage table: catalogue and random counts of each branch" % kind),
        whole(dom, ("rule", "condition", "pairs"), 2,
              [[c["rule"], c["condition"], c["pairs"]] for c in rep["conditions"]],
              "%s: the conditions table: independence pairs of each condition" % kind),
        whole(dom, battery, 2, [[b[k] for k in battery] for b in rep["battery"]],
              "%s: the battery table: the counts of each capability" % kind),
        whole(dom, ("comparison", "hook", "event", "why", "replay"), 3,
              [[d.get(k) for k in ("comparison", "hook", "event", "why", "reproduce")]
               for d in rep["disagreements"]], "%s: the disagreements table" % kind)]


def browse(kind, rep, out, self_check):
    """Render REP in OUT, open it in Chromium, check the screenshot and the figures."""
    with open(os.path.join(out, "report.json"), "w") as f:
        json.dump(rep, f)
    p = subprocess.run([sys.executable, os.path.join(HERE, "report_html.py"), out],
                       capture_output=True, text=True)
    check("%s: this tree's report_html.py renders it" % kind, not p.returncode, [p.stderr[-500:]])
    if p.returncode:
        return
    shot = os.path.join(out, "shot.png")
    p = chromium(out, "--screenshot=" + shot, "--window-size=1280,4000", "--dump-dom")
    check("%s: chromium renders it" % kind, not p.returncode and "</html>" in p.stdout,
          ["chromium exit %d" % p.returncode] + p.stderr.splitlines()[-3:])
    try:
        image = png(open(shot, "rb").read())
    except (OSError, ValueError, struct.error, zlib.error) as e:
        image = "no screenshot: %s" % e
    check("%s: its screenshot is a PNG 1280 pixels wide" % kind,
          not isinstance(image, str) and image[0] == 1280,
          [image if isinstance(image, str) else "width %d" % image[0]])
    if not isinstance(image, str):
        ink = sum(len(r) - r.count(255) for r in image[1])
        check("%s: the screenshot is not blank" % kind, ink > 1000 and len(set(image[1])) > 2,
              ["%d distinct rows, %d bytes not white" % (len(set(image[1])), ink)])
    if "</html>" not in p.stdout:
        return
    dom = Dom(p.stdout)
    check("%s: the page is this report_html.py's" % kind, report_html.STYLE in p.stdout)
    check("%s: the page loads nothing from outside it" % kind, not dom.loads, dom.loads[:5])
    for name, ok, diag in figures(kind, rep, dom):
        check(name, ok, diag)
    if self_check:  # the checks can fail: one figure changed, its check (only) fails
        changed = copy.deepcopy(rep)
        changed["summary"][-1]["agree"] += 1
        failed = [(name, diag) for name, ok, diag in figures(kind, changed, dom) if not ok]
        check("%s: a figure changed in report.json fails its check" % kind,
              len(failed) == 1 and "agreement %(comparison)s/%(hook)s" % changed["summary"][-1]
              in failed[0][0] and " agree: page " in failed[0][1][0], ["failed: %s" % failed])


def main():
    if not shutil.which("chromium"):
        check("chromium is installed", False, ["no chromium: make deps (vmconfig/install-deps)"])
        return tap.finish()
    reports = [("run", crafted.RUN, True), ("campaign", crafted.CAMPAIGN, True)]
    for d in sys.argv[1:]:
        try:
            with open(os.path.join(d, "report.json")) as f:
                rep = json.load(f)
        except (OSError, ValueError) as e:
            check("%s: report.json is read" % d, False, [str(e)])
            continue
        reports.append((d.rstrip("/"), rep, False))
    with tempfile.TemporaryDirectory(prefix="fcaps-test-browser-", ignore_cleanup_errors=True) as t:
        for i, (kind, rep, self_check) in enumerate(reports):
            os.mkdir(os.path.join(t, str(i)))
            browse(kind, rep, os.path.join(t, str(i)), self_check)
    return tap.finish()


if __name__ == "__main__":
    sys.exit(main())
