#!/usr/bin/env python3
"""Reduce each signature of a campaign to a smallest event that still shows it.

    reduce.py DIR [--rounds N] [--candidates N]

DIR is a campaign's (tests/diff/campaign): its report.json, and in
campaign.args the arguments its seeds ran with (the same build, kernel and
mode run the candidates). For each signature, its first random event is
taken as text ("reduced#0: TEXT", event_spec.h) and shrunk greedily: every
candidate one edit smaller (a run of words dropped: chain steps, options,
flags, an actor's qualifiers; a capability bit cleared; a file made a
simpler one, a nosuid mount the plain one) that fcaps_workload --parse
accepts runs in one guest (tests/diff/run --only @FILE), and the smallest
that still disagrees with the same signature is the next event, until none
does; the last is run alone once more. The result goes into report.json (each signature's "reduced") and
report.md, with its replay command.
Exit: 0 every signature reduced, 1 one did not reproduce alone, 2 a harness
error (a candidate run that failed).
"""
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import campaign  # noqa: E402

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "../.."))
WORKLOAD = os.path.join(TOP, "build/guest-bin/fcaps_workload")
HEX = re.compile(r"^(pI=|pA=|bset-=|securebits=)(0x[0-9a-f]+)$")
# simpler files, tried in place of any other: no value, then the mounts' own
PLAIN = "/tmp/fc/plain"
MOUNTS = (("/mnt-nosuid/", "/mnt/"), ("/tmp/fcn/", "/tmp/fc/"))


def text_of(name):
    return name.split(": ", 1)[1]


def size(text):
    """What reduction lowers: words, then capability bits, then how far
    each file is from a plain one on the plain mount"""
    words = text.split(" ")
    bits = sum(bin(int(m.group(2), 16)).count("1") for m in map(HEX.match, words) if m)
    files = sum(0 if w == PLAIN else 2 if w.startswith(("/mnt-nosuid/", "/tmp/fcn/")) else 1
                for w in words if w.startswith("/"))
    return (len(words), bits, files)


def steps(text):
    """An event's steps: the programs its chains exec or trace, and the
    options each program takes (fcaps_probe's --words) or the event sets"""
    flags = ("nnp", "traced-by-root", "traced-by-self", "shared_fs", "setsid", "pE=0",
             "userns", "exec=0", "nosuid_ignore=1", "kill=0")
    return sum(w in ("exec", "trace") or w.startswith("--") or w in flags or
               HEX.match(w) is not None for w in text.split(" ")[1:])


def edits(text):
    """Every other text one edit away (each smaller by size(): test_reduce.py)"""
    words = text.split(" ")
    out = set()
    for i in range(1, len(words)):
        for j in range(i + 1, len(words) + 1):
            out.add(" ".join(words[:i] + words[j:]))
    for i, w in enumerate(words):
        m = HEX.match(w)
        if m:
            v = int(m.group(2), 16)
            for b in range(64):
                if v >> b & 1:
                    cleared = v & ~(1 << b)
                    out.add(" ".join(words[:i] + ["%s%s" % (m.group(1), "%#x" % cleared
                                                             if cleared else "0")] + words[i + 1:]))
        if w.startswith("/"):
            simpler = [PLAIN] + [w.replace(a, b, 1) for a, b in MOUNTS if w.startswith(a)]
            for s in simpler:
                out.add(" ".join(words[:i] + [s] + words[i + 1:]))
    out.discard(text)
    return sorted(out)


def runnable(texts):
    """The texts fcaps_workload can run (its --parse), in canonical form"""
    names = ["reduced#%d: %s" % (k, t) for k, t in enumerate(texts)]
    p = subprocess.run([WORKLOAD, "--parse"], input="\n".join(names) + "\n", text=True,
                       capture_output=True, check=True)
    back = p.stdout.splitlines()
    return sorted({text_of(b) for b in back if not b.startswith("error: ")},
                  key=lambda t: (size(t), t))


class HarnessError(Exception):
    pass


class NotRandom(Exception):
    pass


def run(texts, run_args, out):
    """Run the texts as events in one guest; {text: [signature, ...]}"""
    os.makedirs(out, exist_ok=True)
    names = {"reduced#%d: %s" % (k, t): t for k, t in enumerate(texts)}
    with open(os.path.join(out, "events"), "w") as f:
        f.write("\n".join(names) + "\n")
    cmd = [os.path.join(TOP, "tests/diff/run"), "--events", "0",
           "--only", "@" + os.path.join(out, "events"), "--out", os.path.join(out, "run")] + run_args
    with open(os.path.join(out, "run.log"), "w") as log:
        rc = subprocess.call(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=TOP)
    rep_path = os.path.join(out, "run", "report.json")
    if rc not in (0, 1) or not os.path.exists(rep_path):
        raise HarnessError("candidate run failed (status %d): %s/run.log" % (rc, out))
    with open(rep_path) as f:
        rep = json.load(f)
    if rep.get("harness_errors"):
        raise HarnessError("candidate run: %s" % rep["harness_errors"][0])
    shown = {t: [] for t in texts}
    for d in rep["disagreements"]:
        if d.get("event") in names:
            shown[names[d["event"]]].append(campaign.signature(d))
    return shown


def reduce_one(example, signature, run_args, work, rounds, most):
    """Greedy descent from @example's text; the result as a dict"""
    text = text_of(example["event"])
    start = runnable([text])
    res = {"from": example["event"], "seed": example["seed"], "runs": 0}
    if start != [text]:
        res.update(status="unreadable", why="fcaps_workload --parse refuses the example")
        return res
    shown = run([text], run_args, os.path.join(work, "round-0"))
    res["runs"] = 1
    if signature not in shown[text]:
        res.update(status="not reproduced alone",
                   why="the example run alone shows %s" % (shown[text] or "no disagreement"))
        return res
    for r in range(1, rounds + 1):
        cands = [t for t in runnable(edits(text)) if size(t) < size(text)][:most]
        if not cands:
            break
        shown = run(cands, run_args, os.path.join(work, "round-%d" % r))
        res["runs"] += 1
        still = [t for t in cands if signature in shown[t]]
        if not still:
            break
        text = still[0]         # cands are sorted by size: the smallest
    if text != text_of(example["event"]):
        # candidates ran side by side: the result must show it alone too
        res["runs"] += 1
        if signature not in run([text], run_args, os.path.join(work, "alone"))[text]:
            res.update(status="not reproduced alone", why="%r showed it beside other "
                       "candidates, not alone" % text)
            return res
    name = "reduced: " + text
    res.update(status="reduced", event=name, text=text, steps=steps(text),
               words=len(text.split(" ")),
               replay="make diff ONLY=%s" % shlex.quote(name) if not run_args else
               "tests/diff/run --events 0 %s --only %s" % (
                   " ".join(shlex.quote(a) for a in run_args), shlex.quote(name)),
               catalogue="tests/guest/catalogue.h reduced_rows[]: %s" % json.dumps(text))
    return res


def campaign_args(out):
    """The run arguments the campaign's seeds had (campaign.args after events=)"""
    with open(os.path.join(out, "campaign.args")) as f:
        lines = f.read().splitlines()
    return [a for a in lines[1:] if a]


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        sys.exit("usage: reduce.py DIR [--rounds N] [--candidates N]")
    out, opts = args[0], dict(zip(args[1::2], args[2::2]))
    rounds, most = int(opts.get("--rounds", 12)), int(opts.get("--candidates", 160))
    path = os.path.join(out, "report.json")
    with open(path) as f:
        rep = json.load(f)
    run_args = campaign_args(out)
    worst = 0
    for k, sig in enumerate(rep["signatures"]):
        start = sig.get("random_example", {}).get("event")
        key = hashlib.sha256(("%s\n%s" % (sig["signature"], start)).encode()).hexdigest()[:16]
        work = os.path.join(out, "reduce", key)
        os.makedirs(work, exist_ok=True)
        done = os.path.join(work, "result.json")
        res = None
        if os.path.exists(done):            # a resumed campaign: reduced before
            with open(done) as f:
                res = json.load(f)
            if (res.get("signature"), res.get("start")) != (sig["signature"], start):
                res = None
        if res is None:
            try:
                if "random_example" not in sig:
                    raise NotRandom()
                res = reduce_one(sig["random_example"], sig["signature"], run_args, work,
                                 rounds, most)
            except NotRandom:
                res = {"status": "catalogue only", "why": "no random event shows it; its "
                       "catalogue rows are the smallest events there are"}
            except (HarnessError, OSError, subprocess.CalledProcessError, ValueError) as e:
                res = {"status": "harness error", "why": str(e)}
            res.update(signature=sig["signature"], start=start)
            if res["status"] != "harness error":
                with open(done, "w") as f:
                    json.dump(res, f, indent=1, sort_keys=True)
        sig["reduced"] = res
        worst = max(worst, {"reduced": 0, "catalogue only": 0,
                            "harness error": 2}.get(res["status"], 1))
        print("signature %d (%s): %s%s" % (k + 1, sig["signature"], res["status"],
                                           ": %s (%d steps, %d runs)" % (
                                               res["event"], res["steps"], res["runs"])
                                           if res["status"] == "reduced" else
                                           ": " + res.get("why", "")))
    with open(path, "w") as f:
        json.dump(rep, f, indent=1, sort_keys=True)
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write(campaign.markdown(rep))
    sys.exit(worst)


if __name__ == "__main__":
    main()
