#!/usr/bin/env python3
"""Host test of the differential's comparison (tests/diff/compare.py).

    python3 tests/diff/test_compare.py

Builds crafted run directories, in the formats tests/guest/diff.sh writes
(bpftool -j map dumps, workload JSON lines, counters, status, map sizes,
dumper pids, run.json), runs compare.py on each and checks its exit status
and what it says. Every check compares against a clean run that passes,
so a check fails when compare.py stops noticing what it is about. Ends
TAP (tests/lib/tap.py).
"""
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import compare as comparison  # noqa: E402
import diffdata  # noqa: E402
import tap  # noqa: E402
from battery import OPS as BATTERY  # noqa: E402
from diffdata import HOOKS, OP_HOOK as OPS, V1_TAG as V1  # noqa: E402
from fcaps_abi import RECORD_FIELDS as FIELDS  # noqa: E402
from fcaps_abi import CAP_SETFCAP, CAP_SYS_ADMIN, HOOK_XATTR_GUARD as GUARD  # noqa: E402
COMPARE = os.path.join(HERE, "compare.py")
EXPECTED = os.path.join(HERE, "expected.txt")

B = lambda cap: 1 << cap  # noqa: E731
CHOWN, KILL, BIND, RAW, NICE = B(0), B(5), B(10), B(13), B(23)
SYSADMIN, SETFCAP = B(CAP_SYS_ADMIN), B(CAP_SETFCAP)
FULL = (2 << 40) - 1
U = 1000


class Run:
    """One phase's maps and workload output, built event by event."""

    def __init__(self, workload=500, first_pid=1000):
        self.seq, self.next_pid, self.W = 0, first_pid, workload
        self.bpf, self.kern, self.events = {}, {}, []
        self.put(self.rec(hook=0, pid=workload, uid=0, euid=0, pp=FULL, pe=FULL))  # its own exec

    def rec(self, **kw):
        r = dict.fromkeys(FIELDS, 0)
        r.update(bset=FULL, same_userns=1)
        r.update(kw)
        return r

    def put(self, r, bpf=True, kern=True):
        self.seq += 1
        r["seq"] = self.seq
        if bpf:
            self.bpf[self.seq] = dict(r)
        if kern:
            self.kern[self.seq] = dict(r)
        return r

    def pid(self):
        self.next_pid += 1
        return self.next_pid

    def marker(self):
        self.put(self.rec(hook=1, pid=self.W, target=self.W, target_tgid=self.W, pp=FULL, pe=FULL,
                          target_pp=FULL))

    def reap(self, pid):
        self.put(self.rec(hook=1, pid=self.W, target=pid, target_tgid=pid, sig=9, pp=FULL,
                          pe=FULL))

    def exec_event(self, name, ev=None, **rec):
        """An exec of uid 1000 (unless told) whose observations follow the record."""
        self.marker()
        pid = self.pid()
        ids = dict(uid=U, euid=U, suid=U, gid=U, egid=U, old_euid=U, old_egid=U)
        ids.update(rec)
        r = self.put(self.rec(hook=0, pid=pid, dev=0x800001, ino=12, **ids))
        e = {"workload": self.W, "name": name, "kind": "exec", "file": "/tmp/fc/x", "pid": pid,
             "file_form": "legacy" if r["tag"] else "none", "uid": r["uid"], "pi": r["pi"]}
        if r["ret"]:
            e["exec_errno"] = -r["ret"]
        else:
            e.update(ruid=r["uid"], euid=r["euid"], rgid=r["gid"], egid=r["egid"], Eff=r["pe"],
                     Prm=r["pp"], Inh=r["pi"], Amb=r["pa"], secure=r["secureexec"],
                     securebits_after=r["securebits"])
        e.update(ev or {})
        self.reap(pid)
        self.events.append(e)
        return e

    def pair_event(self, name, op=None, sig=15, spp=0, spe=0, tpp=0, ret=0, cap=0, same_userns=1,
                   target_legacy=0, call_tpp=None, suid=U, tuid=U, ev=None):
        """A target that execs and pauses, a sender that execs and signals it
        (or, with op, changes its scheduling)."""
        self.marker()
        t, s = self.pid(), self.pid()
        ids = lambda u: dict(uid=u, euid=u, suid=u, gid=u, egid=u, old_euid=u, old_egid=u)  # noqa
        self.put(self.rec(hook=0, pid=t, pp=tpp, pe=tpp, legacy=target_legacy,
                          form=target_legacy, tag=V1 if target_legacy else 0, fe=tpp if
                          target_legacy else 0, fp=tpp if target_legacy else 0, **ids(tuid)))
        self.put(self.rec(hook=0, pid=s, pp=spp, pe=spe, **ids(suid)))
        # prlimit's hook sees the target's credentials only: target 0
        rt = 0 if op == "prlimit" else t
        self.put(self.rec(hook=OPS[op] if op else 1, pid=s, target=rt, target_tgid=rt,
                          sig=0 if op else sig, ret=ret, pp=spp, pe=spe,
                          target_pp=tpp if call_tpp is None else call_tpp,
                          same_userns=same_userns, cap_in_target_ns=cap))
        self.reap(t)
        e = {"workload": self.W, "name": name, "kind": "sched" if op else "kill",
             "op": op or "kill", "sig": 0 if op else sig, "sender": s, "target": t,
             "target_tgid": t, "ret": 0 if ret == 0 else -1}
        if op == "sigio":      # the write succeeds; a refused SIGIO leaves the target
            e.update(ret=0, target_alive=1 if ret else 0)
        elif ret:
            e["errno"] = -ret
        e.update(ev or {})
        self.events.append(e)
        return e


    def xinit_event(self, name, allowed, predicted_tpp=RAW):
        """The probe (plain) starts a capped server and SIGTERMs it."""
        self.marker()
        p, c = self.pid(), self.pid()
        self.put(self.rec(hook=0, pid=p, uid=U, euid=U, suid=U))
        self.put(self.rec(hook=0, pid=c, uid=U, euid=U, suid=U, legacy=1, form=1, tag=V1,
                          fe=RAW, fp=RAW, pp=predicted_tpp, pe=predicted_tpp, secureexec=1))
        self.put(self.rec(hook=1, pid=p, target=c, target_tgid=c, sig=15, ret=0 if allowed else -1,
                          target_pp=0 if allowed else RAW))
        self.reap(p)
        e = {"workload": self.W, "name": name, "kind": "xinit", "pid": p, "child": c,
             "kill": 0 if allowed else -1}
        e.update({"child_alive": 0, "child_signal": 15} if allowed else
                 {"errno": 1, "child_alive": 1})
        if not allowed:
            self.reap(c)
        self.events.append(e)

    def xattr_event(self, name, op, eff, ret):
        """An actor holding @eff writes or removes a security.* name; root
        then runs the file (plain here: nothing to predict)."""
        self.marker()
        a, t = self.pid(), self.pid()
        if op.endswith("-other") or not ret:
            self.put(self.rec(hook=GUARD, pid=a, op=1, arg=1 if op.endswith("-other") else 2,
                              pe=eff, pp=eff, uid=U, euid=U, ret=0), kern=False)
        self.put(self.rec(hook=0, pid=t, uid=0, euid=0, suid=0, pp=FULL, pe=FULL))
        self.reap(t)
        e = {"workload": self.W, "name": name, "kind": "xattr", "op": op, "actor": a, "then": t,
             "pids": [a, t], "ret": 0 if ret == 0 else -1, "actor_Eff": eff, "actor_userns": 0,
             "then_Eff": FULL, "then_Prm": FULL, "then_secure": 0}
        if ret:
            e["errno"] = -ret
        self.events.append(e)

    def sigchld_event(self, name, allowed):
        """A capped probe's child drops every capability and signals it."""
        self.marker()
        p, c = self.pid(), self.pid()
        self.put(self.rec(hook=0, pid=p, uid=U, euid=U, suid=U, legacy=1, form=1, tag=V1,
                          fe=RAW, fp=RAW, pp=RAW, pe=RAW, secureexec=1))
        self.put(self.rec(hook=1, pid=c, target=p, target_tgid=p, sig=10, ret=0 if allowed else -1,
                          target_pp=0 if allowed else RAW))
        self.reap(p)
        self.events.append({"workload": self.W, "name": name, "kind": "sigchld", "pid": p,
                            "sigchld": 1, "child_kill_errno": 0 if allowed else 1})


def catalogue(run, at_mode="shadow", skip=(), only=None):
    """Catalogue events reaching every branch of the coverage table, and
    "at": a signal to a process capped by a legacy exec (the swap-caps-from-
    exec case) in the form each run sees it."""
    legacy = dict(legacy=1, form=1, tag=V1, secureexec=1)
    rows = [
        ("exec: exec=0 ignores v1", {"exec_off": 1, "file_form": "legacy"}, {}),
        ("exec: nosuid mount ignores v1", {"nosuid_mount": 1, "file_form": "legacy"},
         dict(nosuid=1)),
        ("exec: nosuid_ignore=1 honours v1", {"nosuid_ignore": 1, "nosuid_mount": 1},
         dict(legacy, nosuid=1, fe=RAW, fp=RAW, pp=RAW, pe=RAW)),
        ("exec: malformed v1", {"file_form": "malformed"}, dict(legacy=1, form=2, tag=V1, ret=-1)),
        ("exec: bset cuts fP", {"bset_drop": BIND},
         dict(legacy, fe=RAW | BIND, fp=RAW | BIND, bset=FULL & ~BIND, pp=RAW, pe=RAW)),
        ("exec: fI meets pI", {}, dict(legacy, fe=RAW | CHOWN, fp=RAW, fi=CHOWN, pi=CHOWN,
                                       pp=RAW | CHOWN, pe=RAW | CHOWN)),
        ("exec: fI, empty pI", {}, dict(legacy, fe=RAW | CHOWN, fp=RAW, fi=CHOWN, pp=RAW, pe=RAW)),
        ("exec: v1 with empty sets", {}, dict(legacy, secureexec=0)),
        ("exec: fE narrows", {}, dict(legacy, fe=RAW, fp=RAW | BIND, pp=RAW | BIND, pe=RAW)),
        ("exec: nnp downgrade", {"nnp": 1}, dict(legacy, fe=RAW, fp=RAW, unsafe=4)),
        ("exec: setuid root", {}, dict(euid=0, suid=0, setid=1, secureexec=1, pp=FULL, pe=FULL)),
        ("exec: fP only", {}, dict(legacy, fp=RAW, pp=RAW)),
        ("exec: fI only", {}, dict(legacy, fi=CHOWN)),
        ("exec: root gets fewer", {}, dict(legacy, uid=0, euid=0, suid=0, gid=0, egid=0,
                                           old_euid=0, old_egid=0, secureexec=0, fe=RAW, fp=RAW,
                                           pp=RAW, pe=RAW, old_pp=FULL)),
        ("exec: setgid", {}, dict(egid=50, setid=1, secureexec=1)),
        ("exec: root runs a setgid v1 file", {}, dict(
            legacy, uid=0, euid=0, suid=0, gid=0, egid=50, old_euid=0, old_egid=0, setid=1,
            secureexec=1, fe=RAW, fp=RAW, pp=RAW, pe=RAW, old_pp=FULL)),
        ("exec: noroot", {"securebits": 1}, dict(uid=0, euid=0, suid=0, securebits=1)),
    ]
    want = lambda name: name not in skip and only in (None, name)  # noqa: E731
    for name, ev, rec in rows:
        if want(name):
            run.exec_event(name, ev, **rec)
    pairs = [
        ("signal: superset allowed", dict(spp=RAW | BIND, spe=RAW | BIND, tpp=RAW)),
        ("signal: CAP_KILL allowed", dict(spp=KILL, spe=KILL, tpp=RAW, cap=1)),
        ("signal: empty pP denied", dict(tpp=RAW, ret=-1)),
        ("signal: other user namespace", dict(spp=RAW, spe=RAW, tpp=0, ret=-1, same_userns=0,
                                              ev={"sender_userns": 1})),
        ("signal: kill=0 allowed", dict(tpp=RAW, ev={"kill_off": 1})),
        ("sched: nice from a superset", dict(op="nice", spp=RAW | BIND, spe=RAW | BIND, tpp=RAW)),
        ("sched: sched with CAP_SYS_NICE", dict(op="sched", spp=NICE, spe=NICE, tpp=RAW, cap=1)),
        ("sched: ioprio denied", dict(op="ioprio", tpp=RAW, ret=-1)),
    ] + [
        # the kill rule's other channels, each of its branches
        ("%s: %s" % (op, what), dict(kw, op=op)) for op in ("prlimit", "sigio")
        for what, kw in (
            ("superset allowed", dict(spp=RAW | BIND, spe=RAW | BIND, tpp=RAW)),
            ("CAP_KILL allowed", dict(spp=KILL, spe=KILL, tpp=RAW, cap=1)),
            ("empty pP denied", dict(tpp=RAW, ret=-1)),
            ("other user namespace", dict(spp=RAW, spe=RAW, tpp=0, ret=-1, same_userns=0,
                                          ev={"sender_userns": 1})),
            ("kill=0 allowed", dict(tpp=RAW, ev={"kill_off": 1})))
    ] + [
        # the kernel decides: the target got RAW by its exec; under BPF the
        # record of that exec predicts RAW but the live pP is 0
        ("signal: at", dict(tpp=RAW, target_legacy=1, ret=-1) if at_mode == "shadow" else
         dict(tpp=RAW, target_legacy=1, call_tpp=0, ret=0)),
    ]
    for name, kw in pairs:
        if want(name):
            run.pair_event(name, **kw)
    for name, op, eff, ret in (
            ("xattr: uid 1000 removes: EPERM", "remove", 0, -1),
            ("xattr: a holder of cap_setfcap removes", "remove", SETFCAP, 0),
            ("xattr: a holder of cap_sys_admin removes: EPERM", "remove", SYSADMIN, -1),
            ("xattr: a holder of cap_sys_admin writes another name", "set-other", SYSADMIN, 0),
            ("xattr: a holder of cap_setfcap writes another name: EPERM", "set-other", SETFCAP,
             -1),
            ("xattr: uid 1000 writes another name: EPERM", "set-other", 0, -1)):
        if want(name):
            run.xattr_event(name, op, eff, ret)
    if want("signal: xinit"):      # as "at": refused by the kernel, allowed under BPF
        run.xinit_event("signal: xinit", allowed=at_mode != "shadow")
    if want("signal: SIGCHLD"):
        run.sigchld_event("signal: SIGCHLD", allowed=at_mode != "shadow")


def battery(eff, prm):
    """Battery outcomes of a process holding @eff, and @prm once raised."""
    out = {"raise": 0}
    for op, caps, _, _ in BATTERY:
        out["bat_" + op] = int(any((eff >> c) & 1 for c in caps))
        out["rbat_" + op] = int(any((prm >> c) & 1 for c in caps))
    return out


def dump(records, name="decisions"):
    """`fcapsctl decisions --json --map NAME`: a record a line, slot order."""
    lines = [dict(r, map=name, seq=q, hook=HOOKS[r["hook"]])
             for q, r in sorted(records.items(), key=lambda qr: qr[0] % 65536)]
    return "".join(json.dumps(r) + "\n" for r in lines)


def counters(errors=0):
    """The per-CPU counters array as bpftool -j dumps it (two CPUs)."""
    def v(cpu, h):
        return {"seen": 10, "allowed": 9, "denied": 1, "errors": errors if (h, cpu) == (1, 1) else 0}
    return [{"key": ["%#04x" % h, "0x00", "0x00", "0x00"],
             "values": [{"cpu": c, "value": ["0x00"] * 32} for c in range(2)],
             "formatted": {"key": h, "values": [{"cpu": c, "value": v(c, h)} for c in range(2)]}}
            for h in range(7)]


def show(name, max_entries=65536):
    return {"id": 7, "type": "array", "name": name, "flags": 1024, "bytes_key": 4,
            "bytes_value": 200, "max_entries": max_entries, "frozen": 0}


class Crafted:
    """A run directory: the shadow phase and, for which=all, swap."""

    def __init__(self, which="all", nrandom=0, skip=(), only=None, drain_after=None):
        self.meta = {"seed": 1, "events": nrandom, "which": which, "fcapsctl": "fcapsctl",
                     "shadow_s": 1, "swap_s": 1, "git": "0" * 40, "kernel": "patched-6.12",
                     "release": "6.12.118"}
        self.shadow = Run()
        catalogue(self.shadow, "shadow", skip, only)
        self.meta["only"] = only
        for n in range(nrandom):
            self.shadow.exec_event("random#%d: exec /tmp/fc/plain uid 0" % n, None, uid=0, euid=0,
                                   suid=0, pp=FULL, pe=FULL)
            if n == drain_after:        # the workload drains both rings (ring_drain.h)
                self.meta["drain_every"] = n + 1
                self.drains = {"shadow-bpfdump.pid": "9100 random#%d 40\n" % n,
                               "shadow-kdump.pid": "9101 random#%d 41\n" % n}
                for pid in (9100, 9101):
                    self.drainer = self.shadow.put(self.shadow.rec(hook=0, pid=pid, pp=FULL,
                                                                   pe=FULL))
        self.swapb = Run(workload=700, first_pid=5000)
        catalogue(self.swapb, "bpf", skip, only)
        self.swapk = copy.deepcopy(self.swapb.events)
        for e in self.swapk:             # the kernel run refuses: the target holds RAW
            if e["name"] == "signal: at":
                e.update(ret=-1, errno=1)
            elif e["name"] == "signal: xinit":
                e.update(kill=-1, errno=1, child_alive=1)
                del e["child_signal"]
            elif e["name"] == "signal: SIGCHLD":
                e["child_kill_errno"] = 1
        for e in self.swapb.events + self.swapk:  # the battery: what each exec'd could do
            if e["kind"] == "exec" and "Eff" in e:
                e.update(battery(e["Eff"], e["Prm"]))
        for e in self.swapb.events:      # BPF cannot grant: the legacy exec gets 6.1's sets
            if e["name"] == "exec: fE narrows":
                e.update(Eff=0, Prm=0, **battery(0, 0))
            elif e["name"] == "exec: root gets fewer":   # 6.1's root, under the ceiling
                e.update(Eff=FULL, Prm=FULL, **battery(RAW, RAW))
        self.files = {}
        if drain_after is None:
            self.drains = {}
        self.norec = None        # the --record none run: the BPF run's events unless set

    def write(self, d):
        os.makedirs(d, exist_ok=True)
        sh = self.shadow
        dumper_b, dumper_k = 9000, 9001
        sh.put(sh.rec(hook=0, pid=dumper_b, uid=0, euid=0, pp=FULL, pe=FULL))
        sh.put(sh.rec(hook=0, pid=dumper_k, uid=0, euid=0, pp=FULL, pe=FULL), bpf=False)
        files = {
            "run.json": json.dumps(self.meta),
            "shadow-bpf.json": dump(sh.bpf),
            "shadow-kernel.json": dump(sh.kern, "kdecisions"),
            "shadow-events.jsonl": "".join(json.dumps(e) + "\n" for e in sh.events),
            "shadow-bpfdump.pid": self.drains.get("shadow-bpfdump.pid", "") + "%d\n" % dumper_b,
            "shadow-kdump.pid": self.drains.get("shadow-kdump.pid", "") + "%d\n" % dumper_k,
            "shadow-counters.json": json.dumps(counters()),
            "shadow-status.json": json.dumps({"mode": "shadow", "decisions": len(sh.bpf),
                                              "kdecisions": len(sh.kern), "counters": {}}),
            "shadow-maps.json": json.dumps({"decisions": show("decisions"),
                                            "kdecisions": show("kdecisions")}),
        }
        if self.meta["which"] == "all":
            sb = self.swapb
            sb.put(sb.rec(hook=0, pid=dumper_b, uid=0, euid=0, pp=FULL, pe=FULL))
            files.update({
                "swap-kernel.jsonl": "".join(json.dumps(e) + "\n" for e in self.swapk),
                "swap-bpf.jsonl": "".join(json.dumps(e) + "\n" for e in sb.events),
                "swap-norec.jsonl": "".join(json.dumps(e) + "\n" for e in
                                            (self.norec if self.norec is not None else sb.events)),
                "swap-bpf.json": dump(sb.bpf),
                "swap-bpfdump.pid": "%d\n" % dumper_b,
                "swap-counters.json": json.dumps(counters()),
                "swap-status.json": json.dumps({"mode": "enforce", "decisions": len(sb.bpf),
                                                "kdecisions": 0, "counters": {}}),
                "swap-maps.json": json.dumps({"decisions": show("decisions"),
                                              "kdecisions": show("kdecisions")}),
            })
        files.update(self.files)
        for name, text in files.items():
            if text is not None:
                with open(os.path.join(d, name), "w") as f:
                    f.write(text)
        return d


passed = failed = 0
TMP = None                 # main() makes it


def compare(c, label):
    run = c.write(os.path.join(TMP, label, "raw"))
    out = os.path.join(TMP, label)
    p = subprocess.run([sys.executable, COMPARE, run, EXPECTED, out], capture_output=True,
                       text=True, timeout=300)
    return p.returncode, p.stdout + p.stderr, out


def check(desc, c, want_rc, *want_text, absent=()):
    global passed, failed
    label = "t%02d" % (passed + failed)
    out = os.path.join(TMP, label)
    if not tap.selected(desc):
        return out
    rc, text, out = compare(c, label)
    missing = [t for t in want_text if t not in text]
    present = [t for t in absent + ("Traceback",) if t in text]
    ok = rc == want_rc and not missing and not present
    tap.result(ok, desc, () if ok else
               ["status %d (wanted %d); missing %s; unwanted %s; output:"
                % (rc, want_rc, missing, present)] + text.splitlines()[-25:])
    passed, failed = passed + ok, failed + (not ok)
    return out


def mutate(fn, **kw):
    c = Crafted(**kw)
    fn(c)
    return c


def read_report(out, name):
    """A report a check wrote; None where it did not run (-t, -l)."""
    path = os.path.join(out, name)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return f.read()


def last_kill(run, name):
    ev = next(e for e in run.events if e["name"] == name)
    return ev, next(r for r in run.kern.values() if r["hook"] == 1 and r["pid"] == ev["sender"])


def main():
    global TMP, passed, failed
    TMP = tempfile.mkdtemp(prefix="fcaps-test-compare-")
    out = check("a clean crafted run (shadow, observed, swap) exits 0", Crafted(), 0,
                "0 unexpected disagreements", "swap-caps-from-exec")
    md = read_report(out, "report.md")
    check_text("report.md has the coverage table, the strict swap count and the fields not "
               "compared", md, "| exec/noroot | 1 | 0 |", "compared strictly",
               "## Fields not compared", "only USB async I/O")
    check_text("report.md names the kernel line the guest ran (its release)", md,
               "# fcaps differential on Linux 6.12, seed 1", "- release: `6.12.118`")
    rj = json.loads(read_report(out, "report.json") or '{"expected": null}')
    check_text("report.json lists every expected divergence",
               None if rj["expected"] is None else json.dumps(rj["expected"]),
               '"id": "swap-caps-from-exec"', "signal: at", "signal: xinit", "signal: SIGCHLD",
               '"id": "swap-exec-creds"', '"id": "swap-battery-grant"')
    check_text("report.md has the battery's per-capability table, root capped agreeing", md,
               "## Capability battery", "| net_raw | CAP_NET_RAW | exec | 16 | 8 | 7 | 15 | 1 | 0 "
               "| 2 / 2 | 0 |", "| net_raw | CAP_NET_RAW | raise | 16 | 9 | 8 | 15 | 1 | 0 | 2 / 2 | 0 |")
    check_text("report.md has the condition table, every condition paired", md,
               "## Conditions: independence pairs",
               "| exec: AT_SECURE | 2.7 | the exec is setid | 1 |",
               "| security.* writes: CAP_SETFCAP, else CAP_SYS_ADMIN | 1, 6 | the actor has "
               "CAP_SYS_ADMIN | 1 |")

    check("an empty run exits 2", mutate(lambda c: c.files.update({"shadow-events.jsonl": ""})),
          2, "is empty")
    check("a truncated dump exits 2", mutate(lambda c: c.files.update(
        {"shadow-kernel.json": dump(c.shadow.kern, "kdecisions")[:-300]})), 2, "not valid JSON")
    check("a truncated events file exits 2", mutate(lambda c: c.files.update(
        {"shadow-events.jsonl": "".join(json.dumps(e) + "\n" for e in c.shadow.events)[:-20]})),
        2, "truncated")
    check("a dump of the other map exits 2", mutate(lambda c: c.files.update(
        {"shadow-bpf.json": dump(c.shadow.kern, "kdecisions")})), 2, "not a record of map decisions")
    check("a missing dump exits 2", mutate(lambda c: c.files.update({"shadow-bpf.json": None})),
          2, "missing")
    check("a missing counters dump exits 2",
          mutate(lambda c: c.files.update({"swap-counters.json": None})), 2, "missing")
    check("counter errors > 0 exit 2", mutate(lambda c: c.files.update(
        {"shadow-counters.json": json.dumps(counters(errors=3))})), 2, "counter kill has 3 errors")
    check("a full (evicting) decision map exits 2", mutate(lambda c: c.files.update(
        {"shadow-maps.json": json.dumps({"decisions": show("decisions"),
                                         "kdecisions": show("kdecisions", 40)})})),
        2, "map kdecisions is full")

    def norec_differs(c):         # the rule alone refused a signal the recording let through
        c.norec = copy.deepcopy(c.swapb.events)
        e = next(e for e in c.norec if e["name"] == "signal: at")
        e.update(ret=-1, errno=1)
    check("a --record none run that differs from the recording run is a disagreement (norec)",
          mutate(norec_differs), 1, "DISAGREE norec signal: at", "differs in errno, ret")

    def hang(c, side):            # an event that never finished on one path
        evs = c.swapk if side == "kernel" else c.swapb.events
        i = next(i for i, e in enumerate(evs) if e["name"] == "signal: at")
        evs[i] = {"workload": evs[i]["workload"], "name": "signal: at", "kind": evs[i]["kind"],
                  "hang": 10, "pids": [1]}
    for side in ("BPF", "kernel"):
        check("an event that hung on the %s path is a disagreement on it (exits 1)" % side,
              mutate(lambda c, s=side: hang(c, s)), 1, "DISAGREE swap signal: at",
              "did not finish on the %s path within 10 s (hung)" % side,
              "reproduce: make diff")

    def norec_pids(c):            # pids are each run's own
        c.norec = copy.deepcopy(c.swapb.events)
        for e in c.norec:
            if "pid" in e:
                e["pid"] += 10000
    check("... but not in its process ids", mutate(norec_pids), 0, "0 unexpected disagreements")
    check("a missing --record none run exits 2",
          mutate(lambda c: c.files.update({"swap-norec.jsonl": None})), 2, "missing")

    def dup_seq(c):
        d = dump(c.shadow.bpf).splitlines(True)
        c.files["shadow-bpf.json"] = "".join(d[:5] + [d[4]] + d[5:])
    check("a duplicate seq exits 2", mutate(dup_seq), 2, "duplicate seq")

    def dup_name(c):
        c.shadow.events[3]["name"] = c.shadow.events[2]["name"]
    check("a duplicate event name exits 2", mutate(dup_name), 2, "duplicate event name")

    def lost_by_bpf(c):           # BPF lost the last event's call record and everything after
        sh = c.shadow
        ev, r = last_kill(sh, "signal: at")
        for q in [q for q in sh.bpf if q >= r["seq"]]:
            del sh.bpf[q]
        c.files["shadow-bpf.json"] = dump(sh.bpf)
    check("a kernel record newer than the snapshot from a workload pid exits 2",
          mutate(lost_by_bpf), 2, "newer than the BPF snapshot")

    def foreign(c):
        sh = c.shadow
        ev, r = last_kill(sh, "signal: CAP_KILL allowed")
        r = sh.rec(hook=0, pid=4242, seq=r["seq"])
        sh.bpf[r["seq"]] = sh.kern[r["seq"]] = r
    check("an exec record of a pid not of its kill event exits 2", mutate(foreign), 2,
          "does not belong to its event")

    def bad_meta(c):
        c.files["run.json"] = "[1, 2]"
    check("a run.json that is not an object exits 2, with a message", mutate(bad_meta), 2,
          "run.json is not a JSON object")

    def egid(c):
        r = next(r for r in c.shadow.kern.values() if r["hook"] == 0 and r["egid"] == 50)
        r["egid"] = 51
    egid_out = check("a field disagreement (egid) exits 1 and names the field", mutate(egid), 1,
                     "differs in egid", "DISAGREE shadow exec: setgid")
    check_plants(egid_out)

    def refused(c):              # a refused exec has no credentials to compare
        r = next(r for r in c.shadow.bpf.values() if r["hook"] == 0 and r["form"] == 2)
        r.update(pp=RAW, pe=RAW, fp=RAW)
    check("a refused exec compares only its decision fields (exits 0)", mutate(refused), 0,
          "0 unexpected disagreements")

    def observed(c):
        next(e for e in c.shadow.events if e["name"] == "exec: fE narrows")["Eff"] = RAW | BIND
    check("an observed-vs-kernel mismatch exits 1", mutate(observed), 1,
          "DISAGREE observed exec: fE narrows", "observed Eff")

    def observed_kill(c):
        ev = next(e for e in c.shadow.events if e["name"] == "signal: superset allowed")
        ev.update(ret=-1, errno=1)
    check("a signal outcome the kernel's record contradicts exits 1", mutate(observed_kill), 1,
          "DISAGREE observed signal: superset allowed")

    def kill_at_guard_seq(c):    # a kernel record under the seq of BPF's guard record
        q, g = next((q, r) for q, r in c.shadow.bpf.items() if r["hook"] == GUARD)
        c.shadow.kern[q] = dict(g, hook=1, target=g["pid"], target_tgid=g["pid"], sig=15)
    check("a kernel record at the seq of a BPF guard record exits 1 on its hook",
          mutate(kill_at_guard_seq), 1, "the kernel's kill record has the seq of BPF's "
          "xattr_guard record")

    def guard_in_kernel_map(c):  # the kernel path has no guard tracepoint
        q, g = next((q, r) for q, r in c.shadow.bpf.items() if r["hook"] == GUARD)
        c.shadow.kern[q] = dict(g)
    check("a guard record in the kernel's map is a harness error (exits 2)",
          mutate(guard_in_kernel_map), 2, "a xattr_guard record in a decision map")

    def unrecorded(ret, errno):
        def edit(c):             # a call that left no record on either path
            ev = dict(next(e for e in c.shadow.events if e["name"] == "signal: superset allowed"))
            ev.update(name="signal: unrecorded", sender=4343, pids=[4343], ret=ret, errno=errno)
            c.shadow.marker()
            c.shadow.events.append(ev)
        return edit
    check("a signal that succeeded with no record of it exits 1", mutate(unrecorded(0, None)), 1,
          "DISAGREE observed signal: unrecorded", "the kernel has no record of it")
    check("a signal never sent (a chain step failed: ret -1, errno 0) needs no record (exits 0)",
          mutate(unrecorded(-1, 0)), 0, "0 unexpected disagreements")
    check("a signal event that reports no outcome is a harness error (exits 2)",
          mutate(unrecorded(None, None)), 2, "reports no ret")

    def esrch(c):
        next(e for e in c.swapk if e["name"] == "signal: at").update(errno=3)
    check("a swap ESRCH-vs-EPERM difference is not excused (exits 1)", mutate(esrch), 1,
          "DISAGREE swap signal: at", "not excused: an outcome other than success or EPERM")

    def reversed_flip(c):        # each run saw the outcome BPF's records predict for the other
        next(e for e in c.swapk if e["name"] == "signal: at").update(ret=0, errno=None)
        next(e for e in c.swapb.events if e["name"] == "signal: at").update(ret=-1, errno=1)
    check("a swap flip opposite to what BPF's records predict is not excused (exits 1)",
          mutate(reversed_flip), 1, "DISAGREE swap signal: at", "the runs saw 0 / -1")

    def unpredicted(c):          # BPF's record says the BPF run refuses, yet it allowed
        r = next(r for r in c.swapb.bpf.values() if r["hook"] == 1 and r["ret"] == 0 and
                 r["target_pp"] == 0 and r["pid"] != c.swapb.W)
        r["target_pp"] = RAW
    check("a swap flip BPF's records do not predict is not excused (exits 1)",
          mutate(unpredicted), 1, "DISAGREE swap signal: at", "predict the same outcome")

    def no_legacy(c):            # a flip between processes no legacy exec capped
        ev = next(e for e in c.swapb.events if e["name"] == "signal: empty pP denied")
        ev.update(ret=0, errno=None)
        next(r for r in c.swapb.bpf.values() if r["hook"] == 1 and r["pid"] == ev["sender"]
             ).update(ret=0, target_pp=0)
    check("a swap flip with no process capped by a legacy exec is not excused",
          mutate(no_legacy), 1, "DISAGREE swap signal: empty pP denied",
          "no process of the call got its capabilities from a legacy exec")

    def server_fate(c):          # the kill succeeded, yet the server lives on
        next(e for e in c.swapb.events if e["name"] == "signal: xinit").update(child_alive=1)
    check("an xinit whose server's fate does not follow the kill is not excused",
          mutate(server_fate), 1, "DISAGREE swap signal: xinit", "fate")

    def not_legacy(c):           # a 6.1 exec's sets differ between the runs
        next(e for e in c.swapb.events if e["name"] == "exec: setuid root").update(Eff=0)
    check("a swap difference in Eff of an exec not decided by the legacy rules is not excused",
          mutate(not_legacy), 1, "DISAGREE swap exec: setuid root", "not a legacy decision")

    def unpredicted_creds(c):    # the kernel run's sets are not what BPF's record predicts
        next(e for e in c.swapk if e["name"] == "exec: fE narrows")["Eff"] = RAW | BIND
    check("a swap difference in Eff that BPF's exec record does not predict is not excused",
          mutate(unpredicted_creds), 1, "DISAGREE swap exec: fE narrows",
          "not what BPF's record predicts")

    def beyond_ceiling(c):       # BPF lets capped root chown: the ceiling failed
        next(e for e in c.swapb.events if e["name"] == "exec: root gets fewer")["bat_chown"] = 1
    check("a battery operation BPF allows and the kernel refuses is not excused (exits 1)",
          mutate(beyond_ceiling), 1, "DISAGREE swap exec: root gets fewer",
          "bat_chown: not a capability the kernel granted")

    def unheld(c):               # the kernel allowed what its sets do not explain
        next(e for e in c.swapk if e["name"] == "exec: fE narrows")["rbat_chown"] = 1
    check("a battery difference the kernel's sets do not explain is not excused (exits 1)",
          mutate(unheld), 1, "DISAGREE swap exec: fE narrows", "rbat_chown")

    def creds(c):
        next(e for e in c.swapk if e["name"] == "exec: fE narrows")["Inh"] = CHOWN
    check("a swap difference in Inh of a legacy exec is not excused (exits 1)", mutate(creds), 1,
          "DISAGREE swap exec: fE narrows")

    check("a condition with no independence pair fails the run",
          Crafted(skip=("exec: root runs a setgid v1 file",)), 1,
          "COVERAGE HOLE exec: AT_SECURE / the exec is setid: no independence pair")
    check("a coverage hole (no catalogue event reaches noroot) fails",
          Crafted(skip=("exec: noroot",)), 1, "COVERAGE HOLE exec/noroot: no catalogue event")
    check("a 5000-event run reaching a branch fewer than 20 times fails",
          Crafted(which="shadow", nrandom=5000), 1, "exec/fE-narrows: 0 random events (< 20")

    check("an --only run of one event exits 0 (no coverage rule)",
          Crafted(only="signal: at"), 0, "0 unexpected disagreements", absent=("COVERAGE",))

    def only(c):
        c.meta["only"] = c.shadow.events[5]["name"]
    check("an --only run whose workload ran more than the named event exits 2",
          mutate(only, which="shadow"), 2, "--only")

    def event_set(desc, names, meta, ok):
        """check_event_set() on events of these names: accepted or not"""
        if not tap.selected(desc):
            return 0, 0
        try:
            diffdata.check_event_set([{"name": n} for n in names], meta, "t")
            got = True
        except diffdata.HarnessError:
            got = False
        tap.result(got == ok, desc)
        return got == ok, got != ok

    for desc, names, meta, ok in (
            ("--only 'random#3' accepts the event random#3 by its whole name",
             ["random#3: exec /x uid 0"], {"only": "random#3"}, True),
            ("--only 'random#3' refuses random#30", ["random#30: exec /x uid 0"],
             {"only": "random#3"}, False),
            ("--only @FILE: the events the file names, in any order", ["b", "a"],
             {"only": "@f", "only_events": ["a", "b"]}, True),
            ("--only @FILE: one event missing is a harness error", ["a"],
             {"only": "@f", "only_events": ["a", "b"]}, False)):
        p, f = event_set(desc, names, meta, ok)
        passed, failed = passed + p, failed + f

    check("a lane of a two-guest run left alone (which=lane1) exits 2",
          Crafted(which="lane1"), 2, "not a whole run")

    # swap-ptrace-narrowed (compare.ptrace_narrowed): seed 12's random#1918,
    # a root target capped to nothing, a tracer with empty sets
    ex = diffdata.EXEC
    target = {"hook": ex, "pid": 2, "ret": 0, "legacy": 1, "euid": 0, "securebits": 0,
              "pp": 0, "bset": FULL}
    tracer = {"hook": ex, "pid": 3, "ret": 0, "legacy": 0, "pp": 0}
    kern, bpf = {"op": "ptrace", "ret": 0}, {"op": "ptrace", "ret": -1, "errno": 1,
                                             "pids": [1, 2, 3]}
    for desc, change, want in (
            ("ptrace: a legacy exec narrowing the target within the tracer's pP is excused",
             {}, "swap-ptrace-narrowed"),
            ("ptrace: not when the kernel's target pP is beyond the tracer's",
             {"target": {"pp": RAW}}, None),
            ("ptrace: not when the target's exec is not legacy", {"target": {"legacy": 0}}, None),
            ("ptrace: not when the target is not root", {"target": {"euid": U}}, None),
            ("ptrace: not when the tracer's own exec was legacy", {"tracer": {"legacy": 1}}, None),
            ("ptrace: not when the tracer may hold CAP_SYS_PTRACE",
             {"tracer": {"pp": B(19)}}, None),
            ("ptrace: not when BPF allows what the kernel refuses",
             {"kern": {"ret": -1, "errno": 1}, "bpf": {"ret": 0}}, None)):
        if not tap.selected(desc):
            continue
        t, r = dict(target, **change.get("target", {})), dict(tracer, **change.get("tracer", {}))
        k, b = dict(kern, **change.get("kern", {})), dict(bpf, **change.get("bpf", {}))
        got = comparison.excuse("caps", ["ret", "errno"], k, b, [(1, t), (2, r)], set())[0]
        tap.result(got == want, desc, [] if got == want else ["got %r" % got])
        passed, failed = passed + (got == want), failed + (got != want)

    # swap-chain-drift (compare.chain_drift): seed 3's random#8317, a chain
    # whose earlier legacy exec gave the kernel path CAP_NET_RAW, which BPF's
    # run never got; its last, traced exec keeps pP' within the old pP
    shadow_rec = {"hook": ex, "pid": 67, "ret": 0, "form": 1, "legacy": 1, "tag": V1,
                  "fe": RAW, "fp": RAW, "fi": 0, "uid": U, "euid": U, "unsafe": 6,
                  "secureexec": 1, "bset": FULL, "old_pp": RAW, "pp": RAW, "pe": RAW, "pa": 0,
                  "live_old_pp": RAW}
    own_rec = dict(shadow_rec, pid=69, old_pp=0, pp=0, pe=0, live_old_pp=0)
    kern = {"kind": "exec", "pid": 88, "Eff": RAW, "Prm": RAW, "Amb": 0, "steps": "trace=0"}
    bpf = dict(kern, pid=69, Eff=0, Prm=0)
    for desc, change, want in (
            ("chain: the kernel run got the shadow prediction, BPF's run started with fewer: "
             "swap-chain-drift", {}, "swap-chain-drift"),
            ("chain: not when the kernel run got other sets than the shadow prediction",
             {"kern": {"Eff": RAW | KILL, "Prm": RAW | KILL}}, None),
            ("chain: not when BPF's run started with as much as the shadow run",
             {"own": {"old_pp": RAW}}, None),
            ("chain: not when BPF's run started with other capabilities",
             {"own": {"old_pp": KILL}}, None),
            ("chain: not when BPF's own prediction exceeds the shadow one",
             {"own": {"pp": RAW | KILL}}, None),
            ("chain: not when BPF's own prediction falls below the shadow one within its old pP",
             {"own": {"old_pp": KILL, "live_old_pp": KILL}, "shadow": {"old_pp": RAW | KILL,
                                                                       "pp": RAW | KILL}},
             None),
            ("chain: the same with the prediction the shadow one within the old pP: excused",
             {"own": {"old_pp": KILL, "live_old_pp": KILL, "pp": KILL, "fp": RAW | KILL},
              "shadow": {"old_pp": RAW | KILL, "pp": RAW | KILL, "fp": RAW | KILL},
              "kern": {"Prm": RAW | KILL}}, "swap-chain-drift"),
            ("chain: not when BPF's run downgraded an exec no downgrade applies to (not unsafe)",
             {"own": {"unsafe": 0}, "shadow": {"unsafe": 0}}, None),
            ("chain: a traced exec alone may go either way (its tracer's CAP_SYS_PTRACE): excused",
             {"own": {"unsafe": 2}, "shadow": {"unsafe": 2}}, "swap-chain-drift"),
            ("chain: not when BPF's ceiling took what its live pP held (a ceiling too tight)",
             {"own": {"live_old_pp": RAW}}, None),
            ("chain: not when the record lacks live_old_pp (an older build)",
             {"own": {"live_old_pp": None}}, None),
            ("chain: the inode may differ (each phase makes its files anew)",
             {"own": {"ino": 99}}, "swap-chain-drift"),
            ("chain: not when the two records' inheritable sets differ",
             {"own": {"pi": RAW}}, None),
            ("chain: not when the two records of the exec name other files",
             {"own": {"fp": KILL}}, None),
            ("chain: not for a single exec (no steps)",
             {"kern": {"steps": None}, "bpf": {"steps": None}}, None),
            ("chain: not without the shadow record", {"shadow": "none"}, None)):
        if not tap.selected(desc):
            continue
        k = {f: v for f, v in dict(kern, **change.get("kern", {})).items() if v is not None}
        b = {f: v for f, v in dict(bpf, **change.get("bpf", {})).items() if v is not None}
        r = {f: v for f, v in dict(own_rec, **change.get("own", {})).items() if v is not None}
        sh = None if change.get("shadow") == "none" else dict(shadow_rec, **change.get("shadow", {}))
        diff = sorted(f for f in ("Eff", "Prm") if k.get(f) != b.get(f))
        got = comparison.excuse("exec", diff, k, b, [(1, r)], set(), sh)[0]
        tap.result(got == want, desc, [] if got == want else ["got %r" % got])
        passed, failed = passed + (got == want), failed + (got != want)

    def missing_random(c):
        c.meta["events"] = 3
    check("a run missing random events exits 2", mutate(missing_random, which="shadow"), 2,
          "random events reported")
    check_drains()
    if failed:
        print("crafted runs and their reports kept in %s" % TMP)
    else:
        shutil.rmtree(TMP, ignore_errors=True)
    return tap.finish()


def check_drains():
    """A run whose workload drained the rings midway (ring_drain.h)."""
    def shadow_rows(out):
        rj = json.loads(read_report(out, "report.json") or "{}")
        return [r for r in rj.get("summary", []) if r["comparison"] == "shadow"], rj

    plain = check("a run without drains exits 0", Crafted(which="shadow", nrandom=4), 0, "0 unexpected")
    out = check("a run drained after random#1 exits 0, the drainers' records the harness's",
                Crafted(which="shadow", nrandom=4, drain_after=1), 0, "0 unexpected", absent=("does not belong",))
    (rows, rj), (want, _) = shadow_rows(out), shadow_rows(plain)
    check_text("a drained run counts what the undrained one does, the drains apart",
               "%s %s" % (rows == want and rows != [], rj.get("drain_records_agreed")), "True 2")

    def drainer_differs(c):
        c.shadow.bpf[c.drainer["seq"]]["pe"] = 0
    check("a drain record the paths disagree on is a disagreement",
          mutate(drainer_differs, which="shadow", nrandom=4, drain_after=1), 1, "(ring drain)")
    check("a drain after an event the workload did not report exits 2", mutate(
        lambda c: c.drains.update({"shadow-kdump.pid": "9101 random#9 41\n"}),
        which="shadow", nrandom=4, drain_after=1), 2, "a drain after 'random#9'")
    check("drains other than --drain-every asked for exit 2", mutate(
        lambda c: c.meta.update(drain_every=3), which="shadow", nrandom=4, drain_after=1), 2,
        "drains after ['random#1'], where --drain-every 3 asked for ['random#2']")
    check("a drain after a catalogue event exits 2", mutate(
        lambda c: c.drains.update({"shadow-kdump.pid": "9101 exec 41\n"}),
        which="shadow", nrandom=4, drain_after=1), 2, "a drain after 'exec'")
    check("a malformed drain line exits 2", mutate(
        lambda c: c.drains.update({"shadow-kdump.pid": "9101 random#1\n"}),
        which="shadow", nrandom=4, drain_after=1), 2, "dumper pid file shadow-kdump.pid holds")

    def ring_size(c, n, status):
        c.files["shadow-maps.json"] = json.dumps({"decisions": show("decisions", n),
                                                  "kdecisions": show("kdecisions", n)})
        c.files["shadow-status.json"] = json.dumps({"mode": "shadow", "decisions": status,
                                                    "kdecisions": status, "counters": {}})

    def size_of(c):
        return len(c.shadow.bpf) + 1       # the final dumper's exec too
    check("drains that each fit the ring exit 0, though the dump holds more than it",
          mutate(lambda c: ring_size(c, size_of(c) - 20, 0), which="shadow", nrandom=4, drain_after=1), 0,
          "0 unexpected", absent=("is full",))
    check("a drain as large as the ring exits 2", mutate(
        lambda c: ring_size(c, 40, 0), which="shadow", nrandom=4, drain_after=1), 2, "map decisions is full")
    check("a last stretch as large as the ring exits 2", mutate(
        lambda c: ring_size(c, size_of(c) - 40, 0), which="shadow", nrandom=4, drain_after=1), 2,
        "map decisions is full")


def check_plants(out):
    """plantcheck.py on the egid run: caught only by a disagreement on the
    plant's hook in one of its fields, in a run that exited 1."""
    table = os.path.join(TMP, "plants.txt")
    with open(table, "w") as f:
        f.write("# NAME | path | comparison | hook | fields | catch\n"
                "EGID | kernel | shadow | exec | egid, gid | setgid\n"
                "EGID_OBS | kernel | observed | exec | egid |\n"
                "PE | bpf | shadow | exec | pe |\n"
                "KILL | bpf | shadow | kill,sched | egid |\n"
                "SWAP | bpf | both | exec | egid |\n"
                "NAME | bpf | shadow | exec | egid | no such event\n")
    plantcheck = os.path.join(HERE, "plantcheck.py")
    for plant, rc, want in (("EGID", 1, "PASS: plant EGID caught (1 disagreements on egid)"),
                            ("EGID_OBS", 1, "PASS: plant EGID_OBS caught"),
                            ("PE", 1, "FAIL: plant PE not caught"),
                            ("KILL", 1, "FAIL: plant KILL not caught"),
                            ("SWAP", 1, "FAIL: plant SWAP not caught by swap"),
                            ("NAME", 1, "FAIL: plant NAME not caught"),
                            ("EGID", 2, "FAIL: plant EGID: harness error"),
                            ("EGID", 0, "FAIL: plant EGID not caught: the run exited 0")):
        desc = "plantcheck: %s with status %d says %r" % (plant, rc, want.split(":")[0])
        if not os.path.exists(os.path.join(out, "report.json")):
            check_text(desc, None)
            continue
        p = subprocess.run([sys.executable, plantcheck, table, plant, out, str(rc)],
                           capture_output=True, text=True)
        check_text(desc, p.stdout if (p.returncode == 0) == want.startswith("PASS") else
                   "status %d: %s" % (p.returncode, p.stdout[:0]), want)


def check_text(desc, text, *want):
    global passed, failed
    if not tap.selected(desc):
        return
    if text is None:
        tap.skip(desc, "its run was not selected (-t)")
        return
    missing = [w for w in want if w not in text]
    tap.result(not missing, desc, ["missing: %s" % missing] if missing else ())
    passed, failed = passed + (not missing), failed + bool(missing)


if __name__ == "__main__":
    sys.exit(main())
