#!/usr/bin/env python3
"""Loop byte sizes from `llvm-objdump -d` output (read on stdin).

For every function, the innermost loop is the span from the target of its
last backward branch to the end of that branch; prints one line per
function: `loop-bytes <function> <bytes> header-align <header % 16>`.
"""
import re
import sys

func = None
best = {}
fn_re = re.compile(r"^[0-9a-f]+ <(.+)>:$")
ins_re = re.compile(r"^\s*([0-9a-f]+):\s+((?:[0-9a-f]{2} )+)\s*(\S+)\s*(.*)$")
for line in sys.stdin:
    line = line.rstrip("\n")
    m = fn_re.match(line)
    if m:
        func = m.group(1)
        continue
    m = ins_re.match(line)
    if not m or func is None:
        continue
    addr = int(m.group(1), 16)
    size = len(m.group(2).split())
    mnem, ops = m.group(3), m.group(4)
    if not mnem.startswith("j"):
        continue
    t = re.match(r"(?:0x)?([0-9a-f]+)\b", ops)
    if not t:
        continue
    target = int(t.group(1), 16)
    if target <= addr:
        best[func] = (addr + size - target, target % 16)
for f, (n, a) in best.items():
    print("loop-bytes %s %d header-align %d" % (f, n, a))
