#!/usr/bin/env python3
"""The swap comparison's expected divergences: which rule of
tests/diff/expected.txt, if any, excuses an event's difference between
the kernel's run and BPF's (excuse()), each held to the narrow condition
its reason states. The signal and scheduling calls' own are in calls.py."""
import battery
import calls
from diffdata import last_exec
from fcaps_abi import CAP_SYS_PTRACE, UNSAFE_PTRACE

CRED_FIELDS = {"Eff": "pe", "Prm": "pp", "Amb": "pa"}   # what BPF cannot give an exec


def excuse(kind, diff, k, b, records, workload, shadow_rec=None):
    """(expected-divergence id, how) or (None, why not). @shadow_rec: BPF's
    record of the event's last exec in the shadow run, if any."""
    if not diff:
        return None, "no difference"
    if kind == "exec":
        bat = [f for f in diff if battery.split_field(f)]
        if not set(diff) - set(bat) <= set(CRED_FIELDS):
            return None, "only Eff, Prm, Amb and battery outcomes may differ"
        r = last_exec(records, b.get("pid"))
        # a chain's process may carry what an earlier legacy exec left (its
        # ceiling), which BPF's record of the last exec predicts from
        if r is None or r.get("ret") != 0 or not (r.get("legacy") or "steps" in b):
            return None, "the BPF run's record of this exec is not a legacy decision"
        rule = "swap-exec-creds"
        wrong = [o for o, f in CRED_FIELDS.items() if o in k and k[o] != r.get(f)]
        if wrong:
            drift = chain_drift(k, b, r, shadow_rec)
            if drift:
                return None, "the kernel run's %s is not what BPF's record predicts (%s)" % (
                    ", ".join(wrong), drift)
            rule = "swap-chain-drift"
        beyond = [f for f in bat if not battery.grant_explains(f, k, b)]
        if beyond:
            return None, ("%s: not a capability the kernel granted and BPF's sets lack"
                          % ", ".join(beyond))
        if bat and rule == "swap-exec-creds":
            return "swap-battery-grant", "only operations of capabilities BPF cannot grant"
        if rule == "swap-chain-drift":
            return rule, ("the kernel run got the sets BPF predicted in the shadow run; BPF's own "
                          "run started the exec with fewer")
        return rule, "the kernel run got BPF's predicted sets"
    if kind == "xattr" and set(diff) <= {"then_Eff", "then_Prm"}:
        # root's exec of the file after the write: a legacy value narrows
        # root in the kernel run, under BPF only its ceiling does
        r = last_exec(records, b.get("then"))
        if r is None or not r.get("legacy") or r.get("ret") != 0:
            return None, "the BPF run's record of root's exec after the write is not legacy"
        if (k.get("then_Eff"), k.get("then_Prm")) != (r.get("pe"), r.get("pp")):
            return None, "the kernel run's then_Eff, then_Prm are not what BPF's record predicts"
        return "swap-exec-creds", "the kernel run got BPF's predicted sets"
    if kind == "caps" and b.get("op") == "ptrace" and set(diff) <= {"ret", "errno"}:
        return ptrace_narrowed(k, b, records)
    if kind in ("xattr", "caps"):
        return None, "writes and the ceiling's decisions are compared strictly"
    call = calls.call_of(k)
    allowed = set(call.fields) | ({"child_alive", "child_signal"} if kind == "xinit" else set())
    if not set(diff) <= allowed:
        return None, "only the call's outcome may differ"
    if not (calls.consequences_agree(kind, k) and calls.consequences_agree(kind, b)):
        return None, "the server's fate does not follow the kill's outcome"
    ok, how = calls.predict_flip(kind, k, b, records, workload)
    return ("swap-caps-from-exec", how) if ok else (None, how)


# what must agree between BPF's records of one exec in its own run and in
# the shadow run for their predictions to differ by the old sets alone (not
# the inode: each phase makes its files anew, and two lanes boot apart)
DRIFT_SAME = ("form", "legacy", "tag", "fe", "fp", "fi", "pi", "uid", "euid", "suid", "gid",
              "egid", "old_euid", "old_egid", "root_uid", "setid", "secureexec", "unsafe",
              "nosuid", "bset", "securebits")


def legacy_grants(r, own):
    """The pP' the legacy rules give the exec of record @r from the old pP
    @own, as bpf/exec_rules.bpf.h does: the file's grant, within @own where
    the unsafe-exec downgrade applies. A set: a traced exec's downgrade
    turns on its tracer's CAP_SYS_PTRACE, which no record holds."""
    grant = (r.get("fp", 0) & r.get("bset", 0)) | (r.get("fi", 0) & r.get("pi", 0))
    unsafe = r.get("unsafe", 0)
    if not (r.get("setid") or grant & ~own) or not unsafe:
        return {grant}
    if unsafe & ~UNSAFE_PTRACE:
        return {grant & own}
    return {grant, grant & own}


def chain_drift(k, b, r, s):
    """None when a chain's last exec differs between the runs only because
    an earlier step's grant, which BPF cannot make, left BPF's own run
    without capabilities the kernel path held (r: BPF's record of the exec
    in its own run, s: in the shadow run, where the kernel enforced and
    BPF kept no ceiling), else why not. The kernel run must have got what
    BPF predicted in the shadow run. BPF's own run must have started the
    exec with fewer (its old pP strictly within the shadow one's), and
    every capability it lacked must be missing from its live pP, not
    taken by its ceiling: a ceiling that narrows too far is a bug, not
    this divergence. Its prediction must be what the legacy rules give
    from its own old pP (legacy_grants(): no downgrade where none applies),
    and the shadow one's within that old pP: nothing else may differ."""
    if "steps" not in b:
        return "not a chain"
    if s is None or s.get("ret") != 0 or not s.get("legacy"):
        return "no legacy shadow record of the chain's last exec"
    if any(k[o] != s.get(f) for o, f in CRED_FIELDS.items() if o in k):
        return "nor what BPF predicted in the shadow run"
    same = [f for f in DRIFT_SAME if r.get(f) != s.get(f)]
    if same:
        return "its records in the two runs differ in %s" % ", ".join(same)
    if "live_old_pp" not in r:
        return "BPF's record lacks live_old_pp (an older build's?)"
    own, kernel = r.get("old_pp", 0), s.get("old_pp", 0)
    if own & ~kernel or own == kernel:
        return "BPF's run did not start the exec with fewer capabilities"
    if (kernel & ~own) & r.get("live_old_pp", 0):
        return "BPF's ceiling took capabilities its live pP held: the ceiling narrowed too far"
    pp = r.get("pp", 0)
    if pp not in legacy_grants(r, own) or (pp, r.get("pe"), r.get("pa")) != (
            s.get("pp", 0) & own, s.get("pe", 0) & own, s.get("pa")):
        return "BPF's own run predicted other than the legacy rules give from its old pP"
    return None


def ptrace_narrowed(k, b, records):
    """A ptrace attach the kernel allows because a legacy exec narrowed its
    target's pP within the tracer's (cap_ptrace_access_check's subset
    test), which under BPF the target, root, never lost: commoncap refuses
    before any BPF program runs. By BPF's records: the target's exec
    legacy, its predicted pP within the tracer's and root's bounding set
    (6.1's pP for it) beyond; the tracer's sets 6.1's own (its record's
    pP is then its live one), without CAP_SYS_PTRACE."""
    if (k.get("ret"), b.get("ret"), b.get("errno")) != (0, -1, 1):
        return None, "not the kernel allowing and BPF refusing with EPERM"
    pids = b.get("pids") or []
    target = last_exec(records, pids[1]) if len(pids) > 1 else None
    tracer = last_exec(records, pids[-1] if len(pids) > 2 else pids[0]) if pids else None
    if not target or not target.get("legacy") or target.get("ret") != 0 or \
            target.get("euid") != 0 or target.get("securebits", 0) & 1:
        return None, "the target's last exec is not a legacy one by root"
    if not tracer or tracer.get("legacy") or tracer.get("ret") != 0:
        return None, "the tracer's sets are not the ones 6.1 gave its last exec"
    if target["pp"] & ~tracer["pp"] or not target["bset"] & ~tracer["pp"]:
        return None, "the subset test would not part the two paths"
    if tracer["pp"] >> CAP_SYS_PTRACE & 1:
        # commoncap's other way in: then BPF's own program decided
        return None, "the tracer may hold CAP_SYS_PTRACE"
    return "swap-ptrace-narrowed", "a legacy exec narrowed the target within the tracer's pP"
