#!/usr/bin/env python3
"""report.py RAW OUT [CLOCK]: one clock's report of `make bench` (tests/bench/run).

RAW holds what tests/guest/bench.sh wrote (results.jsonl: one JSON object
a line, a measurement {mode, round, batch, what, value, unit}, a skip
{..., skipped} or an error {..., error}; info.json) and host.json from the
host. Writes OUT/report-CLOCK.md, OUT/report-CLOCK.json and
OUT/ratios-CLOCK.png (gnuplot; CLOCK: wall or icount, the guest's clock),
prints the table and the issue's targets with PASS or MISS. A miss is not
an error: the exit status is 0 unless RAW cannot be read.

Per (what, mode): the median and the spread (min-max) over every round and
batch; the ratio to the same benchmark in mode off and in mode floor, taken
round by round (the rounds are interleaved so that the modes of one round
share the host's state) and the median of those. Ratios are of cost: time
per operation, or for the rates (files/s, lines/s, events/s) the inverse,
so above 1 is always slower.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import progstats  # noqa: E402

MODES = ["off", "kernel", "floor", "enforce-norec", "enforce-rec", "shadow", "shadow-join"]
ORDER = ["exec_plain", "exec_v1", "kill0", "kill0_capped", "sigdeliver", "tgkill", "setprio",
         "rw", "openclose", "capable_loop", "capable_ceiling", "exec_policy_1", "exec_policy_10000", "exec_policy_1000000",
         "scan", "import_10k", "import", "diff_eps"]
KILLS = ["kill0", "kill0_capped", "sigdeliver", "tgkill"]
EXECS = ["exec_plain", "exec_v1"]
TCG_NOTE = ("TCG exaggerates atomic operations and helper calls relative to native, "
            "so ratios, not absolute times, are what to read.")
ICOUNT_NOTE = ("Instruction clock (QEMU -icount shift=0): a guest nanosecond is one guest "
               "instruction, whatever the host does, so these ratios repeat to the "
               "instruction; they count instructions, not what TCG or a CPU spends on them "
               "(a helper call, an atomic, a cache miss weigh as one instruction each).")
DESCRIPTIONS = {
    "exec_plain": "fork + execve + wait of a 129-byte static ELF without an xattr",
    "exec_v1": "the same with a legacy v1 value (`fcapsctl setcap F cap_net_raw+ep`)",
    "kill0": "kill(pid, 0) to a paused child of the same uid",
    "sigdeliver": "SIGUSR1 to a child in sigwaitinfo(), acknowledged through a pipe (round trip)",
    "tgkill": "tgkill() of a blocked SIGUSR2 to a sibling thread",
    "kill0_capped": "kill0 from a copy of fcaps_bench with the v1 value 'cap_sys_admin+ep' "
                    "to its child: sender and target carry ceilings in enforce modes",
    "setprio": "setpriority(PRIO_PROCESS, child, its nice value)",
    "rw": "one byte written to a pipe and read back: the read()/write() path, "
          "where fcaps has no program",
    "openclose": "open(\"/dev/null\", O_WRONLY) + close(): the file_open hook, "
                 "where the integrity programs look for the knobs that silence BPF",
    "capable_loop": "sethostname(current name): one capable(CAP_SYS_ADMIN) a call",
    "capable_ceiling": "capable_loop run by a copy of fcaps_bench with the v1 value "
                       "'cap_sys_admin+ep': in enforce modes its credentials carry a ceiling "
                       "(exec_v1 against exec_plain is the exec with and without one)",
    "exec_policy_N": "exec_v1 with the BPF policy map holding N entries (synthetic keys)",
    "scan": "`fcapsctl policy scan` of a tmpfs tree (1% of the files with a value)",
    "import_10k": "`fcapsctl policy import` of a 10,000-line file naming files of that tree",
    "import": "`fcapsctl policy import` of a line for every file of the tree",
    "diff_eps": "`fcaps_workload --path both --seed 1 --no-catalogue` under shadow, "
                "fixture setup included",
}


def load_jsonl(path):
    rows, bad = [], 0
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:
                bad += 1
    return rows, bad


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, json.JSONDecodeError):
        return {}


def is_rate(unit):
    return unit.endswith("/s")


def fmt_value(v, unit):
    if is_rate(unit):
        return f"{v:,.0f} {unit}" if v >= 100 else f"{v:.3g} {unit}"
    if v >= 1e6:
        return f"{v / 1e6:.2f} ms"
    if v >= 1e3:
        return f"{v / 1e3:.1f} µs"
    return f"{v:.0f} ns"


def fmt_ratio(r):
    return "–" if r is None else f"{r:.2f}×"


class Stats:
    def __init__(self, rows):
        vals = [r["value"] for r in rows]
        self.unit = rows[0]["unit"]
        self.values = vals
        self.n = len(vals)
        self.rounds = sorted({r["round"] for r in rows})
        self.median = statistics.median(vals)
        self.min = min(vals)
        self.max = max(vals)
        self.timeout = any(r.get("timeout") for r in rows)
        self.spread_pct = 100.0 * (self.max - self.min) / self.median if self.median else 0.0

    def cost(self):
        """Time-like: larger is slower."""
        if is_rate(self.unit):
            return 1.0 / self.median if self.median else None
        return self.median


def main():
    if len(sys.argv) not in (3, 4):
        print(__doc__.split("\n\n")[0], file=sys.stderr)
        return 2
    raw, out = sys.argv[1], sys.argv[2]
    clock = sys.argv[3] if len(sys.argv) == 4 else "wall"
    note = ICOUNT_NOTE if clock == "icount" else TCG_NOTE
    try:
        rows, bad = load_jsonl(os.path.join(raw, "results.jsonl"))
    except OSError as e:
        print(f"report.py: {e}", file=sys.stderr)
        return 2
    host = load_json(os.path.join(raw, "host.json"))
    guest = load_json(os.path.join(raw, "info.json"))
    done = load_json(os.path.join(raw, "done.json"))
    os.makedirs(out, exist_ok=True)

    meas, skips, errors = {}, {}, []
    for r in rows:
        key = (r.get("what", "?"), r.get("mode", "?"))
        if "error" in r:
            errors.append(r)
        elif "skipped" in r:
            skips.setdefault(key, []).append(r)
        elif isinstance(r.get("value"), (int, float)):
            meas.setdefault(key, []).append(r)
    stats = {k: Stats(v) for k, v in meas.items()}
    seen = {k[0] for k in list(stats) + list(skips)}
    whats = [w for w in ORDER if w in seen]
    extra_policy = sorted((w for w in seen - set(ORDER) if w.startswith("exec_policy_")
                           and w[12:].isdigit()), key=lambda w: int(w[12:]))
    at = max([whats.index(w) + 1 for w in whats if w.startswith("exec_policy_")] or
             [len([w for w in whats if w in ORDER[:7]])])
    whats[at:at] = extra_policy
    whats += sorted(seen - set(ORDER) - set(extra_policy))
    modes = [m for m in MODES if any(k[1] == m for k in list(stats) + list(skips))]
    modes += sorted({k[1] for k in list(stats) + list(skips)} - set(MODES))

    def cost(rs):
        v = statistics.median(r["value"] for r in rs)
        return (1.0 / v if v else None) if is_rate(rs[0]["unit"]) else v

    def round_ratios(what, mode, ref, ref_what=None):
        """The ratio in each round both ran: interleaving's point is that a
        round's modes share the host's state, whatever it was then."""
        a, b = meas.get((what, mode)), meas.get((ref_what or what, ref))
        if not a or not b or a[0]["unit"] != b[0]["unit"]:
            return []
        out = []
        for rnd in sorted({r["round"] for r in a} & {r["round"] for r in b}):
            ca = cost([r for r in a if r["round"] == rnd])
            cb = cost([r for r in b if r["round"] == rnd])
            if ca and cb:
                out.append(ca / cb)
        return out

    def ratio(what, mode, ref, ref_what=None):
        """Median over rounds of the per-round ratio of costs."""
        rs = round_ratios(what, mode, ref, ref_what)
        return statistics.median(rs) if rs else None

    # ---- the table ----
    def cell(what, mode):
        s = stats.get((what, mode))
        if not s:
            if (what, mode) in skips:
                return "skipped"
            if any(e.get("what") == what and e.get("mode") == mode for e in errors):
                return "ERROR"
            return ""
        v = ("< " if s.timeout else "") + fmt_value(s.median, s.unit)
        r_off, r_floor = ratio(what, mode, "off"), ratio(what, mode, "floor")
        if r_off is None and r_floor is None:
            return v
        return f"{v} ({fmt_ratio(r_off)}; {fmt_ratio(r_floor)})"

    table = ["| what | " + " | ".join(modes) + " |",
             "|---|" + "---|" * len(modes)]
    for w in whats:
        table.append(f"| {w} | " + " | ".join(cell(w, m) for m in modes) + " |")
    spread = ["| what | " + " | ".join(modes) + " |",
              "|---|" + "---|" * len(modes)]
    for w in whats:
        cells = []
        for m in modes:
            s = stats.get((w, m))
            cells.append(f"{fmt_value(s.min, s.unit)} – {fmt_value(s.max, s.unit)} "
                         f"(±{s.spread_pct / 2:.1f}%, n={s.n})" if s else "")
        spread.append(f"| {w} | " + " | ".join(cells) + " |")

    # ---- targets ----
    targets = []

    def target(name, ok, detail):
        status = "N/A" if ok is None else ("PASS" if ok else "MISS")
        targets.append({"target": name, "status": status, "detail": detail})

    def noise(what, mode, ref="off", limit=None, ref_what=None, offset=0.0):
        """Per-round ratios, and whether they fall on both sides of @limit."""
        rs = round_ratios(what, mode, ref, ref_what)
        if not rs:
            return ""
        text = "; rounds " + ", ".join(f"{r:.2f}" for r in rs)
        if limit is not None and min(rs) <= limit + offset < max(rs):
            text += " (inconclusive: rounds on both sides of the limit)"
        return text

    for w in KILLS:
        r, f = ratio(w, "enforce-norec", "off"), ratio(w, "floor", "off")
        target(f"{w}: enforce-norec ≤ floor + 0.10 (ratios to off)",
               None if r is None or f is None else r <= f + 0.10,
               "not measured" if r is None or f is None else
               f"enforce-norec {r:.3f}× vs floor {f:.3f}× + 0.10 = {f + 0.10:.3f}×"
               + noise(w, "enforce-norec", limit=f + 0.10))
    for w in KILLS:
        for m in ("enforce-rec", "shadow", "shadow-join"):
            r = ratio(w, m, "off")
            what = " (recording)" if m != "shadow-join" else \
                " (BPF's records and the kernel's: the differential's setup)"
            target(f"{w}: {m}{what} ≤ 2.0× off", None if r is None else r <= 2.0,
                   "not measured" if r is None else f"{r:.3f}×" + noise(w, m, limit=2.0))
    for w in EXECS:
        for m in ("kernel", "enforce-norec", "enforce-rec", "shadow", "shadow-join"):
            r = ratio(w, m, "off")
            target(f"{w}: {m} ≤ 1.01× off", None if r is None else r <= 1.01,
                   "not measured" if r is None else f"{r:.4f}×" + noise(w, m, limit=1.01))
    for m in ("enforce-rec", "shadow"):
        a, b = stats.get(("exec_policy_1000000", m)), stats.get(("exec_policy_1", m))
        r = ratio("exec_policy_1000000", m, m, "exec_policy_1")
        if a and b and r is not None:
            target(f"exec_policy: 1,000,000 entries within 1% of 1 entry ({m})", r <= 1.01,
                   f"{r:.4f}× ({fmt_value(a.median, a.unit)} vs {fmt_value(b.median, b.unit)})"
                   + noise("exec_policy_1000000", m, m, 1.01, "exec_policy_1"))
        else:
            why = [x["skipped"] for k in (("exec_policy_1000000", m), ("exec_policy_1", m))
                   for x in skips.get(k, [])]
            target(f"exec_policy: 1,000,000 entries within 1% of 1 entry ({m})", None,
                   "not measured" + (f": {why[0]}" if why else ""))
    s = stats.get(("scan", "enforce-rec"))
    target("scan ≥ 20,000 files/s (enforce-rec)", None if not s else s.median >= 20000,
           "not measured" if not s else f"{s.median:,.0f} files/s (min {s.min:,.0f})")

    # ---- report.md ----
    model = host.get("model", "?")
    machine = (f"host: {host.get('nproc', '?')} CPUs, {model}; "
               f"{'KVM' if host.get('accel') == 'kvm' else 'TCG'} guest "
               f"({guest.get('nproc', '?')} vCPU, {host.get('qemu_mem', '?')}, "
               f"kernel {guest.get('release', '?')}, LSMs {guest.get('lsm', '?')})")
    params = (f"{guest.get('rounds', '?')} interleaved rounds, {guest.get('batches', '?')} "
              f"batches a benchmark, mode and round (batches calibrated to "
              f"{guest.get('target_s', '?')} s in mode off, scale {guest.get('scale', '?')}); "
              f"scan tree {guest.get('tree_files', '?')} files; diff_eps "
              f"{guest.get('diff_events', '?')} events; guest run "
              f"{host.get('guest_seconds', done.get('seconds', '?'))} s")
    md = [f"# fcaps benchmark, {clock} clock ({host.get('date', '?')})", "",
          f"- {machine}",
          f"- git {host.get('git', '?')}",
          f"- {params}", "",
          f"**{note}**", "",
          "Cells: median over every round and batch (ratio to off; ratio to floor) of the "
          "same benchmark; a ratio is the median over rounds of that round's ratio (the "
          "modes of one round share the host's state). Ratios are of cost (for rates, the "
          "inverse), so above 1 is slower. "
          "`< x`: the command timed out; x is an upper bound.", ""]
    md += table + ["", "## Targets", ""]
    md += ["Each target is judged on the median over rounds of the per-round ratio; "
           "the per-round ratios follow, so that a verdict inside the noise shows.", ""]
    md += [f"- **{t['status']}** {t['target']}: {t['detail']}" for t in targets]
    md += progstats.markdown(raw, MODES)
    md += ["", "## Spread (min – max over rounds and batches)", ""] + spread
    md += ["", "## Benchmarks", ""]
    md += [f"- `{k}`: {v}" for k, v in DESCRIPTIONS.items()]
    md += ["- modes: off (kernel.fcaps.exec=0 kill=0, no BPF), kernel (rules on, no BPF), "
           "floor (empty BPF programs on fcaps' seven hooks, switches 0), enforce-norec / "
           "enforce-rec (`fcapsctl load --mode enforce --record none|all`, switches 0), "
           "shadow (`--mode shadow --record all`, rules on), shadow-join (the same with "
           "`--kernel-records`: the kernel's records too, as the differential loads it)"]
    if skips or errors or bad:
        md += ["", "## Skipped and broken", ""]
        for (w, m), rs in sorted(skips.items()):
            md.append(f"- skipped {w} in {m} (rounds "
                      f"{', '.join(str(r['round']) for r in rs)}): {rs[0]['skipped']}")
        for e in errors:
            md.append(f"- ERROR {e.get('what')} in {e.get('mode')} round "
                      f"{e.get('round')}: {e['error']}")
        if bad:
            md.append(f"- {bad} unreadable lines in results.jsonl")
    with open(os.path.join(out, f"report-{clock}.md"), "w") as f:
        f.write("\n".join(md) + "\n")

    # ---- report.json ----
    doc = {
        "host": host, "guest": guest, "done": done, "note": note, "clock": clock,
        "stats": [dict(what=w, mode=m, unit=s.unit, median=s.median, min=s.min, max=s.max,
                       n=s.n, rounds=s.rounds, spread_pct=round(s.spread_pct, 3),
                       timeout=s.timeout, values=s.values,
                       ratio_off=ratio(w, m, "off"), ratio_floor=ratio(w, m, "floor"),
                       ratio_off_rounds=round_ratios(w, m, "off"),
                       ratio_floor_rounds=round_ratios(w, m, "floor"))
                  for (w, m), s in sorted(stats.items())],
        "targets": targets,
        "skipped": [dict(what=w, mode=m, rounds=[r["round"] for r in rs], reason=rs[0]["skipped"])
                    for (w, m), rs in sorted(skips.items())],
        "errors": errors,
    }
    with open(os.path.join(out, f"report-{clock}.json"), "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True, ensure_ascii=False)

    plot = plot_ratios(out, whats, modes, ratio, clock)

    print("\n".join(md[:8]))
    print("\n".join(table))
    print("\nTargets:")
    for t in targets:
        print(f"  {t['status']:4} {t['target']}: {t['detail']}")
    for (w, m), rs in sorted(skips.items()):
        print(f"  skipped {w} in {m}: {rs[0]['skipped']}")
    for e in errors:
        print(f"  ERROR {e.get('what')} in {e.get('mode')} round {e.get('round')}: {e['error']}")
    print(f"\nreport: {os.path.join(out, f'report-{clock}.md')}, "
          f"{os.path.join(out, f'report-{clock}.json')}"
          + (f", {plot}" if plot else " (no plot: gnuplot missing or failed)"))
    return 0


def plot_ratios(out, whats, modes, ratio, clock):
    """Bars of the ratio to off, per benchmark (x) and mode; log y if needed."""
    cols = [m for m in modes if m != "off"]
    rows = [w for w in whats if any(ratio(w, m, "off") is not None for m in cols)]
    if not rows or not cols or not shutil.which("gnuplot"):
        return None
    data = os.path.join(out, f"ratios-{clock}.dat")
    vals = []
    with open(data, "w") as f:
        f.write("what " + " ".join(cols) + "\n")
        for w in rows:
            rs = [ratio(w, m, "off") for m in cols]
            vals += [r for r in rs if r]
            f.write(w + " " + " ".join(f"{r:.5f}" if r else "?" for r in rs) + "\n")
    log = max(vals) / min(vals) > 8
    png = os.path.join(out, f"ratios-{clock}.png")
    script = "\n".join([
        "set terminal pngcairo size 1400,700 noenhanced font ',10'",
        f"set output '{png}'",
        "set datafile missing '?'",
        "set title 'fcaps: cost relative to off (kernel rules off, no BPF), median of "
        f"rounds and batches; TCG guest, {clock} clock'",
        "set style data histograms",
        "set style histogram clustered gap 1",
        "set style fill solid 0.8 border -1",
        "set boxwidth 0.9",
        "set key outside right top",
        "set xtics rotate by -30",
        "set grid ytics",
        "set ylabel 'ratio to off" + (" (log scale)'" if log else "'"),
        f"set logscale y; set yrange [{min(vals) * 0.8:.3f}:*]" if log else "set yrange [0:*]",
        "set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb 'black'",
        "plot " + ", ".join(f"'{data}' using {i + 2}:xtic(1) title columnheader({i + 2})"
                            for i in range(len(cols))),
    ])
    gp = os.path.join(out, f"ratios-{clock}.gp")
    with open(gp, "w") as f:
        f.write(script + "\n")
    r = subprocess.run(["gnuplot", gp], capture_output=True, text=True)
    if r.returncode != 0 and "pngcairo" in r.stderr:
        with open(gp, "w") as f:
            f.write(script.replace("pngcairo", "png", 1) + "\n")
        r = subprocess.run(["gnuplot", gp], capture_output=True, text=True)
    if r.returncode != 0:
        print(f"report.py: gnuplot failed: {r.stderr.strip()}", file=sys.stderr)
        return None
    return png


if __name__ == "__main__":
    sys.exit(main())
