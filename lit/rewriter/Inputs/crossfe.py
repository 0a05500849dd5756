#!/usr/bin/env python3
"""Compares the plugin's variant loops with the rewriter's, built from the
same REF loop (the plugin's f.decan.L0.REF, rewritten by `decan rewrite`).

usage: crossfe.py PLUGIN_OBJDUMP REWRITER_DISASM PLUGIN_LIST REWRITER_LIST FN...

FN is a function (its loop f:L0) or a nest, `f:N0` (both front ends built
with --nests: the plugin's f.decan.N0.REF rewritten as its nest f:N0).

Instructions are compared one by one after renaming registers consistently
(by first appearance, per loop), dropping NOP padding (the rewriter's
listing leaves it out), branch targets and RIP-relative displacements (the
two place code differently). Statuses come from `decan list` (VARIANTS)."""
import re
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, os.pardir, os.pardir, "scripts"))
from decan_abi import VARIANTS  # noqa: E402


def norm(ins):
    ins = ins.strip()
    if not ins or ins.startswith("nop") or ins.startswith("data16") or \
            ins.startswith("cs nop") or ins.startswith("int3"):
        return None
    ins = re.sub(r"\s*#.*$", "", ins)
    parts = ins.split(None, 1)
    op = parts[0]
    args = parts[1] if len(parts) > 1 else ""
    if op.startswith("j"):
        return op
    if op.startswith("call") and not args.startswith("*"):
        return op  # a direct call: its target moved with the code
    args = re.sub(r"-?(0x)?[0-9a-f]*\(%rip\)", "RIP", args)
    # llvm-objdump prints hex, the rewriter's listing decimal.
    args = re.sub(r"(-?)0x([0-9a-f]+)",
                  lambda m: m.group(1) + str(int(m.group(2), 16)), args)
    return op + " " + re.sub(r"\s+", "", args)


def rename(body):
    names = {}

    def sub(m):
        return names.setdefault(m.group(0), "%%r%d" % len(names))
    return [re.sub(r"%[a-z0-9]+", sub, i) for i in body]


def unread_steps(body):
    """body without induction updates whose register nothing else reads."""
    out = []
    for i, ins in enumerate(body):
        m = re.match(r"(inc|dec|add|sub)\w*\s+(?:\$-?\d+,)?(%r\d+)$", ins)
        if m and not any(m.group(2) in o for k, o in enumerate(body) if k != i):
            continue
        out.append(ins)
    return out


def plugin_loops(text):
    """{function: [instr]}: the loop of each decan variant function (from
    the target of its backward conditional branch to that branch); a copy
    that is only a jump to another copy (the same code after its rules,
    llvm-plugins/MachineSharedCode.h) gets that copy's loop."""
    out, fn, rows, alias = {}, None, [], {}

    def close():
        if fn is None:
            return
        m = len(rows) == 1 and re.match(r"jmp\s+\S+ <([^+>]+)>", rows[0][1])
        if m:
            alias[fn] = m.group(1)
            return
        # A nest's copy: every block between the first header a backward
        # branch (jmp included) reaches and the last such branch; the
        # rewriter lays the same blocks out from the outer header on (a
        # rotation: compared as such).
        if ".decan.N" in fn:
            back = []
            for addr, ins in rows:
                m = re.match(r"j\w*\s+(?:0x)?([0-9a-f]+)", ins)
                # within the copy: a jump into another copy's tail
                # (MachineSharedCode) is no back edge
                if m and rows[0][0] <= int(m.group(1), 16) < addr:
                    back.append((int(m.group(1), 16), addr))
            if back:
                lo, hi = min(b[0] for b in back), max(b[1] for b in back)
                out[fn] = [i for a, i in rows if lo <= a <= hi]
            return
        for k in range(len(rows) - 1, -1, -1):
            addr, ins = rows[k]
            m = re.match(r"j(?!mp)\w+\s+(?:0x)?([0-9a-f]+)", ins)
            if m and int(m.group(1), 16) < addr:
                start = int(m.group(1), 16)
                out[fn] = [i for a, i in rows if start <= a <= addr]
                return
    for line in text.splitlines():
        m = re.match(r"[0-9a-f]+ <(.+)>:", line)
        if m:
            close()
            fn, rows = m.group(1), []
            continue
        m = re.match(r"\s*([0-9a-f]+):\s+(.*)", line)
        if m and fn:
            rows.append((int(m.group(1), 16), m.group(2)))
    close()
    for fn, target in alias.items():
        if target in out:
            out[fn] = out[target]
    return out


def rewriter_loops(text):
    out, cur = {}, None
    for line in text.splitlines():
        m = re.match(r"(\S+)\.(\w+) @0x", line)
        if m:
            cur = (m.group(1), m.group(2))
            out[cur] = []
        elif cur and line.startswith(" "):
            out[cur].append(line.strip())
    # The copy ends with the jump to the exit: not part of the loop.
    for k, v in out.items():
        if v and v[-1].startswith("jmp"):
            v.pop()
    return out


def listed(text):
    rows = {}
    for line in text.splitlines()[1:]:
        f = line.split()
        if len(f) >= 4:
            rows[f[0]] = set(f[3].split(",")) if f[3] != "-" else set()
    return rows


def main():
    pobj, rdis, plist, rlist = (open(a).read() for a in sys.argv[1:5])
    fns = sys.argv[5:]
    P, R = plugin_loops(pobj), rewriter_loops(rdis)
    PL, RL = listed(plist), listed(rlist)
    bad = 0
    for item in fns:
        fn, _, nest = item.partition(":")
        kind = nest or "L0"
        ref = "%s.decan.%s.REF:%s" % (fn, kind, kind)
        ps, rs = PL.get(fn + ":" + kind), RL.get(ref)
        if ps != rs:
            print("%s: statuses differ: plugin %s, rewriter %s" %
                  (item, sorted(ps or []), sorted(rs or [])))
            bad += 1
        for v in VARIANTS:
            if v not in (ps or set()):
                continue
            a = [x for x in map(norm, P.get("%s.decan.%s.%s" % (fn, kind, v),
                                            [])) if x]
            b = [x for x in map(norm, R.get((ref, v), [])) if x]
            if nest:
                # Jumps the two layouts place differently (a fall-through
                # in one is a jmp in the other); stack displacements (the
                # rewriter's copy runs below its saved state, its %rsp
                # operands moved with it).
                a, b = ([re.sub(r"-?\d*\(%rsp", "S(%rsp", x) for x in y
                         if x != "jmp"] for y in (a, b))
            if nest:
                # The rotation of the plugin's blocks that starts where the
                # rewriter's copy does, when one matches.
                for k in range(len(a)):
                    if rename(a[k:] + a[:k]) == rename(b):
                        a = a[k:] + a[:k]
                        break
            a, b = rename(a), rename(b)
            if v == "CTRL" and a != b:
                # Live-outs are unknown in a binary: the plugin keeps an
                # induction variable its probes read after the loop, the
                # rewriter (which restores the entry state) need not.
                a, b = unread_steps(a), unread_steps(b)
            if a != b:
                bad += 1
                print("%s %s differs:\n  plugin:   %s\n  rewriter: %s" %
                      (item, v, " ; ".join(a), " ; ".join(b)))
            else:
                print("%s %s: %d instructions agree" % (item, v, len(a)))
    print("cross-front-end: %d difference(s)" % bad)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
