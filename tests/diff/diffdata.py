"""Reading what tests/guest/diff.sh wrote, refusing anything incomplete.

Every problem with the input is a HarnessError: the run cannot be trusted,
so compare.py reports it on stderr and exits 2 (1 is kept for
disagreements). Nothing here drops a record or an event without saying so.
"""
import bisect
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build"))
from fcaps_abi import (HOOKS, HOOK_EXEC as EXEC, HOOK_KILL as KILL,  # noqa: E402
                       HOOK_SETSCHEDULER as SETSCHEDULER, HOOK_SETNICE as SETNICE,
                       HOOK_SETIOPRIO as SETIOPRIO, HOOK_PRLIMIT as PRLIMIT,
                       HOOK_SIGIO as SIGIO, HOOK_XATTR_GUARD as XATTR_GUARD, MALFORMED,
                       SECBIT_NOROOT, V1_TAG, V3_TAG, WELL_FORMED)

SCHED_HOOKS = (SETSCHEDULER, SETNICE, SETIOPRIO)
# the kill rule's other channels (SEMANTICS 3): events of kind "sched" with
# these ops, decided by the kill rule
CHANNEL_HOOKS = (PRLIMIT, SIGIO)
# xattr, xattr_guard and integrity records never join the kernel's
DECISION_HOOKS = (EXEC, KILL) + SCHED_HOOKS + CHANNEL_HOOKS
OP_HOOK = {"sched": SETSCHEDULER, "nice": SETNICE, "ioprio": SETIOPRIO,
           "prlimit": PRLIMIT, "sigio": SIGIO}
KINDS = ("exec", "kill", "sched", "sigchld", "xinit", "xattr", "caps")
DECISION_MAPS = ("decisions", "kdecisions")


class HarnessError(Exception):
    """The run's output is missing, incomplete or inconsistent."""


def hook_name(h):
    return HOOKS[h] if isinstance(h, int) and 0 <= h < len(HOOKS) else "hook %r" % (h,)


def kind_of_hook(h):
    """exec, kill or sched: the family a shadow hook belongs to (prlimit and
    SIGIO are calls of the sched kind, decided by the kill rule)."""
    return "sched" if h in SCHED_HOOKS + CHANNEL_HOOKS else hook_name(h)


def read_text(path, what):
    if not os.path.exists(path):
        raise HarnessError("%s missing: %s" % (what, path))
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    if not text.strip():
        raise HarnessError("%s is empty: %s" % (what, path))
    return text


def load_json(path, what):
    text = read_text(path, what)
    try:
        return json.loads(text)
    except ValueError as e:
        raise HarnessError("%s is not valid JSON (truncated?): %s: %s" % (what, path, e))


def load_map(path, name, what="decision map dump"):
    """`fcapsctl decisions --json --map NAME`, a record a line: {seq: record}."""
    text = read_text(path, what)
    if not text.endswith("\n"):
        raise HarnessError("%s is not valid JSON lines (truncated?): %s" % (what, path))
    out = {}
    for n, line in enumerate(text.splitlines(), 1):
        try:
            rec = json.loads(line)
        except ValueError as e:
            raise HarnessError("%s line %d is not valid JSON (truncated?): %s: %s"
                               % (what, n, path, e))
        if not isinstance(rec, dict) or rec.pop("map", None) != name:
            raise HarnessError("%s line %d is not a record of map %s: %s" % (what, n, name, path))
        if rec.get("hook") in HOOKS:
            rec["hook"] = HOOKS.index(rec["hook"])
        seq = rec.get("seq")
        if not isinstance(seq, int) or seq <= 0 or not isinstance(rec.get("hook"), int) \
                or not isinstance(rec.get("pid"), int):
            raise HarnessError("%s line %d lacks a seq, hook or pid: %s" % (what, n, path))
        bad = sorted(f for f, v in rec.items() if not isinstance(v, int) or isinstance(v, bool))
        if bad:
            raise HarnessError("%s line %d (seq %s): %s not a number: %s"
                               % (what, n, seq, ", ".join(bad), path))
        if seq in out:
            raise HarnessError("duplicate seq %d in %s" % (seq, path))
        out[seq] = rec
    return out


def load_events(path, what="workload output"):
    """The workload's JSON lines; every line complete, every name unique."""
    text = read_text(path, what)
    if not text.endswith("\n"):
        raise HarnessError("%s is truncated (its last line is incomplete): %s" % (what, path))
    events, names = [], set()
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            ev = json.loads(line)
        except ValueError:
            raise HarnessError("%s line %d is not JSON (truncated?): %s" % (what, n, path))
        if not isinstance(ev, dict) or not isinstance(ev.get("name"), str) \
                or not isinstance(ev.get("workload"), int):
            raise HarnessError("%s line %d has no name or workload pid: %s" % (what, n, path))
        if ev.get("kind") not in KINDS:
            raise HarnessError("%s line %d (%s): unknown kind %r" % (what, n, ev["name"], ev.get("kind")))
        if ev["name"] in names:
            raise HarnessError("duplicate event name %r in %s" % (ev["name"], path))
        names.add(ev["name"])
        events.append(ev)
    if not events:
        raise HarnessError("%s has no events: %s" % (what, path))
    return events


def check_event_set(events, meta, what):
    """The workload ran what it was asked to: the one named event, or every
    random event 0..EVENTS-1 exactly once."""
    only = meta.get("only")
    if only and only.startswith("@"):
        if sorted(e["name"] for e in events) != sorted(meta.get("only_events") or []):
            raise HarnessError("%s: --only %s names %d events, the workload reported %d" % (
                what, only, len(meta.get("only_events") or []), len(events)))
        return
    if only:
        names = [e["name"] for e in events]
        # "random#N" alone names random event N (fcaps_workload --only)
        short = only.startswith("random#") and ":" not in only
        if names != [only] and not (short and len(names) == 1 and
                                    names[0].startswith(only + ":")):
            raise HarnessError("%s: --only %r, but the workload reported %d events (%s)" % (
                what, only, len(events), ", ".join(repr(e["name"]) for e in events[:3])))
        return
    numbers = sorted(int(e["name"][7:].split(":")[0]) for e in events
                     if e["name"].startswith("random#") and e["name"][7:].split(":")[0].isdigit())
    want = meta.get("events")
    if isinstance(want, int) and numbers != list(range(want)):
        raise HarnessError("%s: %d of the %d random events reported (the workload stopped early?)"
                           % (what, len(numbers), want))


def read_dumps(run, names):
    """Who dumped the maps, from diff.sh's pid files: [(pid, after, count)].
    A line "PID" is the dump after the last event (after None); a line
    "PID random#N COUNT" a drain the workload ran after random event N,
    which wrote COUNT records (ring_drain.h)."""
    dumps = []
    for n in names:
        text = read_text(os.path.join(run, n), "dumper pid file")
        for line in text.splitlines():
            w = line.split()
            try:
                if len(w) == 1:
                    dumps.append((int(w[0]), None, None))
                elif len(w) == 3:
                    dumps.append((int(w[0]), w[1], int(w[2])))
                else:
                    raise ValueError
            except ValueError:
                raise HarnessError("dumper pid file %s holds %r" % (n, line[:60]))
    return dumps


def final_dumpers(dumps):
    """The pids that dumped the maps after the last event"""
    return {pid for pid, after, _ in dumps if after is None}


def check_drains(dumps, meta, what):
    """The drains a pid file names are those --drain-every asked for, in
    order, and one dump follows them: a list of what is wrong."""
    every, events = meta.get("drain_every"), meta.get("events")
    want = []
    if every and isinstance(events, int) and not meta.get("only"):
        want = ["random#%d" % (n - 1) for n in range(every, events, every)]
    got = [after for _, after, _ in dumps if after is not None]
    errors = []
    if got != want:
        errors.append("%s: drains after %s, where --drain-every %s asked for %s" % (
            what, got[:3] or "no event", every, want[:3] or "none"))
    if [after for _, after, _ in dumps][-1:] != [None] or \
            sum(after is None for _, after, _ in dumps) != 1:
        errors.append("%s: not one dump after the drains" % what)
    return errors


def drain_counts(dumps):
    """The record count of each drain"""
    return [count for _, after, count in dumps if after is not None]


def check_bookkeeping(run, phase, dumps, drained=None):
    """Every insert succeeded and nothing was evicted: no counter has errors,
    and no decision map reached max_entries (an LRU map evicts silently).
    @dumps maps a decision map's name to its loaded dump, where there is one;
    @drained to the record counts of its drains (read_dumps), which the
    dump holds too: what the ring held at once is the largest of them."""
    errors = []
    counters = load_json(os.path.join(run, phase + "-counters.json"), "counters dump")
    status = load_json(os.path.join(run, phase + "-status.json"), "fcapsctl status --json")
    maps = load_json(os.path.join(run, phase + "-maps.json"), "bpftool map show of the decision maps")
    if not isinstance(counters, list) or not isinstance(status, dict) or not isinstance(maps, dict):
        raise HarnessError("%s: counters, status or maps file has the wrong shape" % phase)
    for e in counters:
        fmt = e.get("formatted", {}) if isinstance(e, dict) else {}
        # a per-CPU array: "values": [{"cpu": N, "value": {...}}]
        per_cpu = fmt.get("values") if isinstance(fmt, dict) else None
        values = [c.get("value") if isinstance(c, dict) else None for c in per_cpu] \
            if isinstance(per_cpu, list) else [fmt.get("value") if isinstance(fmt, dict) else None]
        if not values or not all(isinstance(v, dict) and isinstance(v.get("errors"), int)
                                 for v in values):
            raise HarnessError("%s-counters.json: an entry without formatted errors" % phase)
        n = sum(v["errors"] for v in values)
        if n:
            errors.append("%s: counter %s has %d errors (a decision not recorded)"
                          % (phase, hook_name(fmt.get("key")), n))
    if status.get("record", "all") != "all":
        errors.append("%s: fcapsctl status says record=%s: the decision map does not hold "
                      "every decision" % (phase, status.get("record")))
    status_counters = status.get("counters")
    if not isinstance(status_counters, dict):
        raise HarnessError("%s-status.json: no counters object" % phase)
    for h, v in status_counters.items():
        if isinstance(v, dict) and v.get("errors"):
            errors.append("%s: fcapsctl status: %s errors=%s" % (phase, h, v["errors"]))
    for m in DECISION_MAPS:
        show = maps.get(m)
        if not isinstance(show, dict) or not isinstance(show.get("max_entries"), int):
            raise HarnessError("%s-maps.json: no max_entries for %s" % (phase, m))
        counts = (drained or {}).get(m) or []
        n = max([len(dumps.get(m) or ()) - sum(counts),
                 status.get(m) if isinstance(status.get(m), int) else 0] + counts)
        if n >= show["max_entries"]:
            errors.append("%s: map %s is full (%d of %d entries): records may have been evicted"
                          % (phase, m, n, show["max_entries"]))
    return errors


def choice(ev, field, token):
    """A switch the event chose: its field, else the token its name spells
    (the workload's names spell their switches: "exec=0", "kill=0", ...)."""
    v = ev.get(field)
    return bool(v) if v is not None else token in ev["name"]


def event_pids(ev):
    """The pids whose records belong to the event (a "pids" list names any
    helper process the workload starts besides these)."""
    pids = [ev.get(k) for k in ("pid", "sender", "target", "target_tgid", "child", "member")]
    if isinstance(ev.get("pids"), list):
        pids += ev["pids"]
    return {p for p in pids if isinstance(p, int) and not isinstance(p, bool) and p > 0}


def is_marker(rec, workload):
    return (rec["hook"] == KILL and rec.get("sig") == 0 and rec["pid"] in workload
            and rec.get("target") == rec["pid"])


class Windows:
    """Records attributed to events. The workload starts every event with a
    signal 0 to itself; both maps record it, so a record belongs to the
    event of the last marker before its seq (pids are reused too soon on
    the small guest kernel to tell events apart by pid). Records before the
    first marker are the workload's setup; those of a process that dumped
    or drained the maps (@dumps, read_dumps) after the event they fall in
    are the harness's own."""

    def __init__(self, events, bpf, kern, dumps, what):
        self.events = events
        # the events' own processes, and the runner that forks them
        # each event's marker, in order: its own process's signal 0 to
        # itself (a long run reuses every pid many times over, so that a
        # set of all the events' pids would hold nearly any pid)
        self.marks = []
        for q in sorted(bpf):
            k = len(self.marks)
            if k < len(events) and is_marker(bpf[q], (events[k]["workload"],)):
                self.marks.append(q)
        self.mark_set = frozenset(self.marks)     # a list's "in" is a walk
        if len(self.marks) != len(events):
            raise HarnessError("%s: %d event markers in the BPF map for %d events: the run is "
                               "incomplete or records were lost" % (what, len(self.marks), len(events)))
        index = {ev["name"].split(":")[0]: i for i, ev in enumerate(events)
                 if ev["name"].startswith("random#")}
        self.dumpers = {}       # (pid, event index) -> "dumper" | "drain"
        for pid, after, _ in dumps:
            if after is not None and after not in index:
                raise HarnessError("%s: a drain after %r, an event the workload did not report"
                                   % (what, after))
            i = len(events) - 1 if after is None else index[after]
            self.dumpers[(pid, i)] = "dumper" if after is None else "drain"
        self.recs = {"bpf": bpf, "kernel": kern}
        self.by_event = [[] for _ in events]       # seqs, both maps
        for q in sorted(set(bpf) | set(kern)):
            i = self.index(q)
            if i is not None and self.role(q)[0] in ("event", "marker"):
                self.by_event[i].append(q)

    def index(self, seq):
        i = bisect.bisect_right(self.marks, seq) - 1
        return i if i >= 0 else None

    def own(self, i):
        """The pids of event @i's own process and of the runner that forks
        it: the harness's, whose kills start and reap the event"""
        ev = self.events[i]
        return {ev["workload"]} | ({ev["runner"]} if isinstance(ev.get("runner"), int) else set())

    def is_mark(self, seq):
        """Whether @seq is an event's marker"""
        return seq in self.mark_set

    def role(self, seq):
        """("marker"|"event"|"setup"|"dumper"|"drain", event index or None)"""
        rec = self.recs["bpf"].get(seq) or self.recs["kernel"].get(seq)
        i = self.index(seq)
        if self.is_mark(seq):
            return "marker", i
        harness = self.dumpers.get((rec["pid"], i))
        if harness:
            return harness, None
        return ("setup", None) if i is None else ("event", i)

    def records(self, i, side):
        """[(seq, record)] of event i in one map, in seq order."""
        m = self.recs[side]
        return [(q, m[q]) for q in self.by_event[i] if q in m]

    def matches(self, rec, ev):
        """Whether a record can belong to the event it falls in."""
        pids, hook, own = event_pids(ev), rec["hook"], {ev["workload"], ev.get("runner")}
        if ev.get("hang"):       # its processes never reported their pids
            return True
        if hook == EXEC:
            return rec["pid"] in pids
        if hook == KILL and ev["kind"] == "caps":   # a tracer's SIGCONT, the target's end
            return rec["pid"] in pids or rec["pid"] in own
        if hook == XATTR_GUARD:  # an xattr event's write (and its set-up), the battery's
            return (ev["kind"] == "xattr" and (rec["pid"] in pids or rec["pid"] in own)) \
                or (ev["kind"] == "exec" and "bat_setfcap" in ev and rec["pid"] in pids)
        if hook == KILL:
            return (rec["pid"] in pids or rec["pid"] in own or
                    (ev["kind"] == "sigchld" and rec.get("target") in pids))
        if hook in SCHED_HOOKS:  # an exec event's battery renices itself
            return rec["pid"] in pids and (ev["kind"] == "sched" or
                                           (ev["kind"] == "exec" and "bat_nice" in ev))
        if hook in CHANNEL_HOOKS:  # a sched event's prlimit or SIGIO
            return rec["pid"] in pids and ev["kind"] == "sched" and \
                OP_HOOK.get(ev.get("op")) == hook
        return False

    def mismatches(self, what):
        """Harness errors: records whose hook or pid is not of their event."""
        errors = []
        for i, ev in enumerate(self.events):
            for side in ("bpf", "kernel"):
                for q, r in self.records(i, side):
                    if not self.is_mark(q) and not self.matches(r, ev):
                        pids = sorted(event_pids(ev))
                        errors.append("%s: %s record seq %d (%s, pid %d) does not belong to its "
                                      "event %r (its pids %s%s)" % (
                                          what, side, q, hook_name(r["hook"]), r["pid"],
                                          ev["name"], pids[:8], " ..." if len(pids) > 8 else ""))
        return errors


def last_exec(records, pid):
    """The last exec record of @pid among [(seq, record)]."""
    found = None
    for _, r in records:
        if r["hook"] == EXEC and r["pid"] == pid:
            found = r
    return found


def last_execs(records):
    """{pid: its last exec record} among [(seq, record)]."""
    return {r["pid"]: r for _, r in records if r["hook"] == EXEC}
