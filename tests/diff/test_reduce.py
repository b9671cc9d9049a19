#!/usr/bin/env python3
"""Host test of the random event's text form (tests/guest/event_spec.c,
through fcaps_workload --list and --parse, run on the host: neither runs an
event) and of reduce.py's edits: every random event reads back as itself;
a text the workload could not run is refused, naming the word; every edit
is smaller; the catalogue's reduced rows read. TAP (tests/lib/tap.py).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import tap  # noqa: E402
import reduce  # noqa: E402

WORKLOAD = reduce.WORKLOAD

REFUSED = [  # (text, what the error must say)
    ("kill /tmp/fc/v1_kill uid 0 -> /tmp/fc/plain uid 1000", "'sig S' wanted"),
    ("exec /tmp/fc/nope uid 0 pI=0 pA=0", "'/tmp/fc/nope': not a file"),
    ("exec /tmp/fc/plain uid 0 pI=0x0 pA=0", "not as the workload writes it"),
    ("exec /tmp/fc/plain uid 0 pA=0 pI=0", "pI=X pA=Y wanted"),
    ("exec /tmp/fc/plain uid 70000 pI=0 pA=0", "not a number in range"),
    ("chain uid 0: /tmp/fc/v1_raw_ep --inherit x exec /tmp/fc/plain", "'x': the option's number"),
    ("chain uid 0: /tmp/fc/v1_raw_ep --bogus exec /tmp/fc/plain", "'--bogus': not a chain word"),
    ("chain uid 0: /tmp/fc/v1_raw_ep /tmp/fc/plain", "not a chain word"),
    ("kill /mnt/v2_raw uid 0 -> /tmp/fc/plain uid 0 sig 15", "a sender without 'chain'"),
    ("kill /tmp/fc/plain uid 0 -> /mnt/v2_raw uid 0 sig 15", "not a fixture"),
    ("xattr set good_v1 by capped king on a file of uid 0 holding nothing", "an actor of"),
    ("xattr set nonesuch by root on a file of uid 0 holding nothing", "a test value's name"),
    ("caps ptrace 0x10 by uid 0", "not a fixture"),
    ("sched /tmp/fc/plain uid 0 -> /tmp/fc/plain uid 0 extra", "a word too many"),
    ("teleport /tmp/fc/plain uid 0", "not an event's first word"),
]


def workload(args, stdin=""):
    p = subprocess.run([WORKLOAD] + args, input=stdin, text=True, capture_output=True)
    return p.returncode, p.stdout, p.stderr


def main():
    if not os.access(WORKLOAD, os.X_OK):
        tap.result(False, "fcaps_workload is built", ["%s missing (make)" % WORKLOAD])
        return tap.finish()
    texts = []
    for seed in (1, 2, 3, 4):
        rc, out, err = workload(["--list", "--no-catalogue", "--seed", str(seed),
                                 "--events", "2500"])
        texts += [line.split("\t")[0].split(": ", 1)[1] for line in out.splitlines()]
    names = ["reduced#%d: %s" % (k, t) for k, t in enumerate(texts)]
    rc, out, err = workload(["--parse"], "\n".join(names) + "\n")
    back = out.splitlines()
    wrong = [(n, b) for n, b in zip(names, back) if n != b]
    tap.result(rc == 0 and len(back) == len(names) == 10000 and not wrong,
               "10,000 random events (seeds 1-4) read back as themselves",
               ["%d of %d differ, e.g. %r -> %r" % (len(wrong), len(names), *wrong[0])]
               if wrong else [err] if rc else [])
    kinds = {t.split(" ")[0] for t in texts}
    want = {"exec", "chain", "kill", "sched", "nice", "ioprio", "prlimit", "sigio", "thread",
            "xattr", "caps"}
    tap.result(want <= kinds, "they spell every kind of event",
               ["missing %s" % (want - kinds)] if want - kinds else [])

    rc, out, err = workload(["--parse"], "".join("reduced: %s\n" % t for t, _ in REFUSED))
    got = out.splitlines()
    bad = [(t, w, g) for (t, w), g in zip(REFUSED, got) if not g.startswith("error: ") or w not in g]
    tap.result(len(got) == len(REFUSED) and not bad,
               "%d texts the workload could not run are refused, saying which word" % len(REFUSED),
               ["%r: want %r, got %r" % b for b in bad])
    rc, out, err = workload(["--parse"], "random#3: exec /tmp/fc/plain uid 0 pI=0 pA=0\n"
                            "reduced#x: exec /tmp/fc/plain uid 0 pI=0 pA=0\n")
    ok = len(out.splitlines()) == 2 and all(
        line.startswith("error: a reduced event's name") for line in out.splitlines())
    tap.result(ok, "only reduced names are read as text", [] if ok else [out])

    sample = texts[:400]
    grown = [(t, e) for t in sample for e in reduce.edits(t) if reduce.size(e) >= reduce.size(t)]
    tap.result(not grown, "every edit of 400 random events is smaller",
               [repr(grown[:1])] if grown else [])
    t = "exec /mnt-nosuid/good_v1 uid 0 pI=0x2001 pA=0 nnp"
    e = set(reduce.edits(t))
    want = {"exec /mnt/good_v1 uid 0 pI=0x2001 pA=0 nnp", "exec /tmp/fc/plain uid 0 pI=0x2001 pA=0 nnp",
            "exec /mnt-nosuid/good_v1 uid 0 pI=0x2000 pA=0 nnp",
            "exec /mnt-nosuid/good_v1 uid 0 pI=0x1 pA=0 nnp",
            "exec /mnt-nosuid/good_v1 uid 0 pI=0x2001 pA=0"}
    tap.result(want <= e and set(reduce.runnable(sorted(want))) == want,
               "edits simplify the mount, the file, each bit and each flag, and run",
               ["missing %s" % (want - e)] if want - e else [])
    steps = {"kill /tmp/fc/v1_kill uid 0 -> /tmp/fc/plain uid 1000 sig 15": 0,
             "kill /tmp/fc/v1_kill uid 0 chain --nnp exec /tmp/fc/plain -> /tmp/fc/plain uid 0 "
             "sig 15": 2,
             "exec /tmp/fc/plain uid 0 pI=0x1 pA=0 nnp shared_fs": 3}
    tap.result(all(reduce.steps(t) == n for t, n in steps.items()),
               "steps count the chains' programs, options and the event's flags",
               ["%r: %d, want %d" % (t, reduce.steps(t), n) for t, n in steps.items()
                if reduce.steps(t) != n])

    # a signature only catalogue rows show, and one whose example does not read:
    # reported as such, no guest run, and a cached result kept to its signature
    d = tempfile.mkdtemp(prefix="fcaps-test-reduce-")
    rep = {"signatures": [{"signature": "shadow | the kill rule | ret", "count": 1},
                          {"signature": "swap | the exec rules | pe", "count": 1,
                           "random_example": {"seed": 1, "event": "random#4: teleport"}}]}
    with open(os.path.join(d, "report.json"), "w") as f:
        json.dump(rep, f)
    with open(os.path.join(d, "campaign.args"), "w") as f:
        f.write("events=10\n--shadow-only\n")
    p = subprocess.run([sys.executable, os.path.join(HERE, "reduce.py"), d],
                       capture_output=True, text=True)
    got = [s.get("reduced", {}).get("status")
           for s in json.load(open(os.path.join(d, "report.json")))["signatures"]]
    tap.result(p.returncode == 1 and got == ["catalogue only", "unreadable"],
               "reduce.py: a catalogue-only and an unreadable signature said, no guest run",
               [] if p.returncode == 1 and got == ["catalogue only", "unreadable"] else
               ["status %d, %s" % (p.returncode, got), p.stderr[-300:]])
    rep["signatures"].reverse()
    with open(os.path.join(d, "report.json"), "w") as f:
        json.dump(rep, f)
    subprocess.run([sys.executable, os.path.join(HERE, "reduce.py"), d], capture_output=True)
    got = [(s["signature"], s.get("reduced", {}).get("signature"))
           for s in json.load(open(os.path.join(d, "report.json")))["signatures"]]
    tap.result(all(a == b for a, b in got), "a resumed reduction keeps each result to its "
               "signature, in any order", [] if all(a == b for a, b in got) else [repr(got)])
    shutil.rmtree(d)

    rc, out, err = workload(["--list", "--seed", "7", "--only", "random#3"])
    ok = rc == 0 and out.startswith("random#3: ") and \
        'with seed 7, random#3 is "%s"' % out.split("\t")[0] in err
    tap.result(ok, "--only random#3 names the whole event it stands for",
               [] if ok else [out, err])

    rc, out, err = workload(["--list"])
    rows = [line for line in out.splitlines() if line.startswith("reduced: ")]
    tap.result(rc == 0 and rows, "the catalogue's reduced rows read (%d)" % len(rows),
               [err] if rc else [])
    return tap.finish()


if __name__ == "__main__":
    sys.exit(main())
