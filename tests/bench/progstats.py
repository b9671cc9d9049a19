"""Per-program cost from the bench's profile passes (tests/guest/bench.sh
profile): bpftool's run_cnt and run_time_ns of every BPF program after one
kill0 and one exec_v1 batch with kernel.bpf_stats_enabled, one file per
mode and round (progs-MODE-rN.json)."""
import glob
import json
import os
import re
import statistics


def load(raw):
    """{(program, mode): [(runs, ns per run) per round]}"""
    out = {}
    for path in sorted(glob.glob(os.path.join(raw, "progs-*-r*.json"))):
        m = re.match(r"progs-(.+)-r(\d+)\.json$", os.path.basename(path))
        try:
            with open(path) as f:
                progs = json.load(f)
        except (OSError, ValueError):
            continue
        for p in progs if isinstance(progs, list) else []:
            runs, ns = p.get("run_cnt", 0), p.get("run_time_ns", 0)
            if runs:
                out.setdefault((p.get("name", "?"), m.group(1)), []).append((runs, ns / runs))
    return out


def markdown(raw, modes):
    data = load(raw)
    if not data:
        return []
    modes = [m for m in modes if any(k[1] == m for k in data)]
    progs = sorted({k[0] for k in data})
    md = ["", "## Per program (bpftool prog show with kernel.bpf_stats_enabled)", "",
          "Over one kill0 and one exec_v1 batch after the timed ones: median over rounds of "
          "run_time_ns / run_cnt (ns a run), and run_cnt. Program names are cut to 15 "
          "characters by the kernel.", "",
          "| program | " + " | ".join(modes) + " |", "|---|" + "---|" * len(modes)]
    for p in progs:
        cells = []
        for m in modes:
            v = data.get((p, m))
            cells.append("%.0f ns (%d runs)" % (statistics.median(x[1] for x in v),
                                                statistics.median(x[0] for x in v))
                         if v else "")
        md.append("| %s | %s |" % (p, " | ".join(cells)))
    return md
