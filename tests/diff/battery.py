"""The capability battery in the swap comparison.

Each exec event of the swap runs reports what the exec'd process could do:
bat_NAME (as exec left it) and rbat_NAME (after raising pE to pP), each 1
allowed, 0 refused, or -errno when the operation cannot be tried here. The
operations and the capabilities that decide them come from their one
definition, tests/guest/battery.h; capability numbers from the host's
<linux/capability.h>.

BPF can refuse but not grant: under the ceiling, a process can do at most
what its 6.1 credentials allow within the sets the legacy rules predict.
So the one difference excused (swap-battery-grant) is an operation the
kernel run allowed and the BPF run refused, whose capability the kernel
run held (Eff; Prm after the raise) while the BPF run's own sets lacked it
among those. An operation BPF allows and the kernel refuses is never
excused: that is the ceiling failing.
"""
import os
import re

from diffdata import SECBIT_NOROOT

HERE = os.path.dirname(os.path.abspath(__file__))
BATTERY_H = os.path.join(HERE, "..", "guest", "battery.h")
CAPABILITY_H = "/usr/include/linux/capability.h"
PREFIXES = (("bat_", "Eff"), ("rbat_", "Prm"))   # and the set that decides each


def _cap_numbers(path=CAPABILITY_H):
    with open(path) as f:
        return {m.group(1): int(m.group(2))
                for m in re.finditer(r"#define\s+(CAP_[A-Z_]+)\s+(\d+)\b", f.read())}


def read_battery(path=BATTERY_H):
    """[(name, [capability numbers], [capability names], where)] in battery.h's order."""
    caps = _cap_numbers()
    with open(path) as f:
        text = f.read()
    ops = []
    for m in re.finditer(r"X\((\w+),\s*(CAP_\w+),\s*(CAP_\w+|-1),\s*(self|child)\)", text):
        names = [n for n in (m.group(2), m.group(3)) if n != "-1"]
        ops.append((m.group(1), [caps[n] for n in names], names, m.group(4)))
    if not ops:
        raise ValueError("%s: no operations found" % path)
    return ops


OPS = read_battery()
CAPS_OF = {name: nums for name, nums, _, _ in OPS}


def split_field(field):
    """(prefix, op, deciding set) for a battery field, else None."""
    for prefix, cred in PREFIXES:
        if field.startswith(prefix) and field[len(prefix):] in CAPS_OF:
            return prefix, field[len(prefix):], cred
    return None


def has(caps, mask):
    return any((mask >> c) & 1 for c in caps)


def grant_explains(field, k, b):
    """Whether BPF's inability to grant explains @field's difference."""
    prefix, op, cred = split_field(field)
    caps = CAPS_OF[op]
    kset, bset = k.get(cred), b.get(cred)
    if k.get(field) != 1 or b.get(field) != 0 or kset is None or bset is None:
        return False
    return has(caps, kset) and not has(caps, kset & bset)




def root_capped(k, record):
    """Root running a file the legacy rules decided: euid 0 after the exec and
    no SECURE_NOROOT, so that 6.1 would have given it root's sets."""
    return k.get("euid") == 0 and not (k.get("securebits", 0) & SECBIT_NOROOT) \
        and record is not None and record.get("legacy") and record.get("ret") == 0


class Table:
    """Per operation: kernel allowed, BPF allowed, agree, excused, disagree;
    and the same agreement for root running a capped file."""

    def __init__(self):
        self.rows = {(p, op): dict(events=0, kernel=0, bpf=0, agree=0, excused=0, disagree=0,
                                   root_capped=0, root_capped_agree=0, untried=0)
                     for p, _ in PREFIXES for op, _, _, _ in OPS}

    def add(self, k, b, record, excused_fields):
        rc = root_capped(k, record)
        for prefix, _ in PREFIXES:
            for op, _, _, _ in OPS:
                f = prefix + op
                if f not in k or f not in b:
                    continue
                r = self.rows[(prefix, op)]
                r["events"] += 1
                if k[f] not in (0, 1) or b[f] not in (0, 1):
                    r["untried"] += 1
                r["kernel"] += k[f] == 1
                r["bpf"] += b[f] == 1
                same = k[f] == b[f]
                r["agree"] += same
                r["excused"] += not same and f in excused_fields
                r["disagree"] += not same and f not in excused_fields
                r["root_capped"] += rc
                r["root_capped_agree"] += rc and same

    def as_list(self):
        names = {op: names for op, _, names, _ in OPS}
        return [dict(op=op, after=("exec" if p == "bat_" else "raise"),
                     capability="|".join(names[op]), **v)
                for (p, op), v in self.rows.items() if v["events"]]

    def markdown(self):
        rows = self.as_list()
        if not rows:
            return []
        md = ["", "## Capability battery: what the exec'd processes could do (swap runs)", "",
              "Per operation, over the exec events that ran it: how many the kernel path "
              "allowed, how many BPF enforce (with the ceiling) allowed, how many agree; "
              "`excused` are swap-battery-grant (the kernel granted a capability BPF cannot); "
              "the last column is root (euid 0 after the exec, no SECURE_NOROOT) running a file the "
              "legacy rules decided. `after raise`: "
              "the same with pE raised to pP by capset.", "",
              "| operation | capability | after | events | kernel allowed | BPF allowed | agree "
              "| excused | disagree | root capped: agree / events | not tried |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
        md += ["| %(op)s | %(capability)s | %(after)s | %(events)d | %(kernel)d | %(bpf)d | "
               "%(agree)d | %(excused)d | %(disagree)d | %(root_capped_agree)d / %(root_capped)d "
               "| %(untried)d |" % r for r in rows]
        return md
