#!/usr/bin/env python3
"""Tabulates a `decan list` output: innermost loops, instrumented, skipped
by reason (callee names folded to 'F'), loops outlined whose machine code
has no single innermost loop, and the REF-only loops by the reason their
LS gives in words. Usage: tabulate.py LIST.txt"""
import collections
import re
import sys

lines = open(sys.argv[1]).read().splitlines()
# A loop row ends with VARIANTS BYTES and the seven subset counts; the
# function column may hold spaces (C++), so the row is read from its end.
tail = re.compile(r"\s(\S+)\s+\d+\s+\d+ \d+ \d+ \d+ \d+ \d+ \d+\s*$")
loops = inst = refonly = 0
skip, why = collections.Counter(), collections.Counter()
for i, row in enumerate(lines):
    m = tail.search(row)
    if row.startswith((" ", "ID ", "region:")) or not m:
        continue
    if not re.match(r"^\S+:L\d+\s", row):
        continue
    loops += 1
    variants = m.group(1)
    nxt = lines[i + 1].strip() if i + 1 < len(lines) else ""
    if variants == "-":
        if nxt.startswith("skipped: "):
            skip[re.sub(r"'[^']*'", "'F'", nxt[len("skipped: "):])] += 1
        elif "REF: no-loop" in nxt:
            skip["outlined, but the machine code has no single innermost "
                 "loop (REF: no-loop)"] += 1
        else:
            skip[nxt[:80]] += 1
        continue
    inst += 1
    if variants == "REF":
        refonly += 1
        r = re.search(r"LS: ([^,(]*(\([^)]*\))?)", nxt)
        why[r.group(1).strip() if r else nxt[:60]] += 1
print(f"innermost loops {loops}, instrumented {inst} "
      f"({100 * inst / max(loops, 1):.1f}%), REF only {refonly}")
for r, c in skip.most_common():
    print(f"  not measured {c:4d}  {r}")
for r, c in why.most_common():
    print(f"  REF only     {c:4d}  LS: {r}")
