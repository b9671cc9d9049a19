"""Signal and scheduling calls: which call an event made, what the workload
saw, which record decided it, and (swap) whether BPF's own records predict
that the two runs decide it differently.
"""
from diffdata import EXEC, KILL, OP_HOOK, SCHED_HOOKS, choice
from fcaps_abi import CAP_KILL, CAP_SYS_NICE, EPERM, SIGCONT, SIGTERM, SIGUSR1


class Call:
    """One call of an event: sender (None: a helper process that reports no
    pid), target, the hooks it goes through, its signal, and the outcome the
    workload saw as a decision-map ret (0 or -errno; None: not made)."""

    def __init__(self, kind, sender, target, hooks, sig, ret, fields, group=False):
        self.kind, self.sender, self.target, self.hooks = kind, sender, target, hooks
        self.sig, self.ret, self.fields, self.group = sig, ret, fields, group


def not_made(ev):
    """A chain step failed before the call: the workload saw ret -1, errno 0."""
    return ev.get("ret") not in (None, 0) and ev.get("errno") == 0


def _outcome(ok, errno):
    if ok is None or (ok != 0 and errno == 0):      # none, or never made
        return None
    return 0 if ok == 0 else (-errno if isinstance(errno, int) else -1000)


def call_of(ev):
    kind = ev["kind"]
    if kind == "kill":
        return Call(kind, ev.get("sender"), ev.get("target"), {KILL}, ev.get("sig"),
                    _outcome(ev.get("ret"), ev.get("errno")), ["ret", "errno"], bool(ev.get("group")))
    if kind == "sched":
        op = ev.get("op")
        hooks = {OP_HOOK[op]} if isinstance(op, str) and op in OP_HOOK else set(SCHED_HOOKS)
        if op == "sigio":    # the write succeeds; a refusal leaves the target alive
            alive = ev.get("target_alive")
            return Call(kind, ev.get("sender"), ev.get("target"), hooks, None,
                        None if alive not in (0, 1) else -EPERM if alive else 0,
                        ["target_alive"])
        # prlimit's hook sees only the target's credentials: target 0
        return Call(kind, ev.get("sender"), 0 if op == "prlimit" else ev.get("target"), hooks,
                    None, _outcome(ev.get("ret"), ev.get("errno")), ["ret", "errno"])
    if kind == "xinit":      # the probe SIGTERMs the capped server it started
        return Call(kind, ev.get("pid"), ev.get("child"), {KILL}, SIGTERM,
                    _outcome(ev.get("kill"), ev.get("errno")), ["kill", "errno"])
    if kind == "sigchld":    # a child, all caps dropped, signals its capped parent
        e = ev.get("child_kill_errno")
        ret = None if not isinstance(e, int) or e < 0 else -e
        return Call(kind, None, ev.get("pid"), {KILL}, SIGUSR1, ret, ["child_kill_errno"])
    return None


def call_records(records, call, ev, workload):
    """The records of @call among [(seq, record)]; all of them for a
    process-group kill, else the last one."""
    found = []
    for _, r in records:
        if r["hook"] not in call.hooks or (call.sig is not None and r.get("sig") != call.sig):
            continue
        if call.sender is not None and r["pid"] != call.sender:
            continue
        if call.sender is None and (r["pid"] in workload or r["pid"] == ev.get("pid")):
            continue
        if not call.group and r.get("target") != call.target:
            continue
        found.append(r)
    return found if call.group else found[-1:]


def check_observed(records, call, ev, workload):
    """None when the kernel's records agree with what the workload saw, else why."""
    if call.ret is None:
        return None
    recs = call_records(records, call, ev, workload)
    if not recs:
        # 6.1's own checks (uid, namespace) may refuse before any hook runs
        return None if call.ret != 0 else "the call succeeded but the kernel has no record of it"
    allowed = any(r.get("ret") == 0 for r in recs)
    if call.group:
        ok = allowed == (call.ret == 0)
    else:
        ok = recs[0].get("ret") == call.ret
    if ok:
        return None
    return "kernel ret %s, the workload saw %s" % (
        [r.get("ret") for r in recs], "success" if call.ret == 0 else "errno %d" % -call.ret)


def rule_kind(kind, op):
    """The rule a call is decided by: prlimit and SIGIO follow the kill rule."""
    return "kill" if op in ("prlimit", "sigio") else kind


def _ids_match(kind, op, s, t):
    """6.1's own owner check before the hook (kill_ok_by_cred, set_one_prio,
    check_same_owner, set_task_ioprio, check_prlimit_permission,
    sigio_perm), from the exec records' ids."""
    if s is None or t is None:
        return None
    su, se = s.get("uid"), s.get("euid")
    tu, te, ts = t.get("uid"), t.get("euid"), t.get("suid", t.get("euid"))
    if kind in ("kill", "xinit", "sigchld"):
        return se in (tu, ts) or su in (tu, ts)
    if op == "prlimit":
        return su == tu == te == ts
    if op == "sigio":
        return se == 0 or se in (tu, ts) or su in (tu, ts)
    if op == "nice":
        return te == se or tu == se
    if op == "sched":
        return se == te or se == tu
    if op == "ioprio":
        return tu == se or tu == su
    return None


def _rule(kind, spp, spe, tpp, same_ns, kill_off, cap_field):
    if cap_field is None:
        cap = bool(spe >> (CAP_SYS_NICE if kind == "sched" else CAP_KILL) & 1)
    else:
        cap = bool(cap_field)
    subset = not (tpp & ~spp)
    if kind == "sched":
        return subset or cap
    return bool(kill_off) or (same_ns and subset) or cap


def predict_flip(kind, ev_k, ev_b, records, workload):
    """swap-caps-from-exec: (True, how) when BPF's own records of the BPF run
    predict exactly what both runs saw and that they differ, else (False, why).
    The kernel run's credentials are what BPF's exec records predicted for
    the kernel (pp, pe); the BPF run's are the live ones in its call record."""
    if ev_b.get("sender_userns") or ev_b.get("target_userns") or ev_b.get("group") \
            or ev_b.get("thread"):
        return False, "namespaces, groups and threads are compared strictly"
    ck, cb = call_of(ev_k), call_of(ev_b)
    if ck.ret not in (0, -EPERM) or cb.ret not in (0, -EPERM):
        return False, "an outcome other than success or EPERM"
    execs = {r["pid"]: r for _, r in records if r["hook"] == EXEC}
    s, t = execs.get(cb.sender), execs.get(cb.target)
    if not any(x is not None and x.get("legacy") and x.get("ret") == 0 for x in (s, t)):
        return False, "no process of the call got its capabilities from a legacy exec"
    rec = (call_records(records, cb, ev_b, workload) or [None])[0]
    if rec is None and (s is None or cb.sender is None):
        return False, "no BPF record of the call or of the sender's exec"
    spp, spe = (s["pp"], s["pe"]) if s is not None else (rec["pp"], rec["pe"])
    tpp = t["pp"] if t is not None else rec.get("target_pp") if rec else None
    if tpp is None:
        return False, "no BPF record of the target's credentials"
    ids = True if kind == "sigchld" or (cb.sig == SIGCONT and not ev_b.get("session")) \
        else _ids_match(kind, ev_b.get("op"), s, t)
    if ids is None:
        return False, "the owner check cannot be predicted"
    rk = rule_kind(kind, ev_b.get("op"))
    cap = spe >> (CAP_SYS_NICE if rk == "sched" else CAP_KILL) & 1
    kill_off = choice(ev_b, "kill_off", "kill=0")
    allowed_k = (ids or bool(cap)) and _rule(rk, spp, spe, tpp, True, kill_off, None)
    if rec is not None:
        allowed_b = _rule(rk, rec.get("pp", 0), rec.get("pe", 0), rec.get("target_pp", 0),
                          rec.get("same_userns", 1), kill_off, rec.get("cap_in_target_ns"))
    elif not ids:
        allowed_b = False            # refused by 6.1's owner check, before any hook
    else:
        return False, "the owner check passes but BPF has no record of the call"
    want_k, want_b = (0 if allowed_k else -EPERM), (0 if allowed_b else -EPERM)
    if want_k == want_b:
        return False, "BPF's records predict the same outcome in both runs"
    if (want_k, want_b) != (ck.ret, cb.ret):
        return False, "BPF's records predict kernel %d / BPF %d, the runs saw %d / %d" % (
            want_k, want_b, ck.ret, cb.ret)
    return True, "predicted: kernel run %s (pP %#x vs target %#x), BPF run %s" % (
        "allows" if allowed_k else "refuses", spp, tpp, "allows" if allowed_b else "refuses")


def consequences_agree(kind, ev):
    """xinit: whether the server's fate follows the kill's outcome."""
    if kind != "xinit":
        return True
    if ev.get("kill") == 0:
        return ev.get("child_alive") == 0 and ev.get("child_signal") == SIGTERM
    return ev.get("child_alive") == 1
