#!/usr/bin/env python3
"""same-code.py A B < objdump: whether functions A and B of an
`llvm-objdump -d --no-show-raw-insn` listing hold the same instructions
(their addresses, branch targets and RIP-relative displacements aside:
the same code at another place; and the padding after an unconditional
jump, which never runs: llvm-plugins/MachineLoopTop.h). Prints "A and B:
same code (N instructions)" or the first instruction that differs."""
import re
import sys

fn = re.compile(r'^[0-9a-f]+ <(.+)>:')
insn = re.compile(r'^\s*[0-9a-f]+:\s+(.*)$')
bodies, cur = {}, None
for line in sys.stdin:
    m = fn.match(line)
    if m:
        cur = bodies.setdefault(m.group(1), [])
        continue
    m = insn.match(line)
    if m and cur is not None:
        text = re.sub(r'<[^>]*>', '', m.group(1).split('#')[0])
        text = re.sub(r'-?0x[0-9a-f]+\(%rip\)', 'X(%rip)', text)
        text = re.sub(r'^((?:j[a-z]+|call[a-z]*)\s+)(?:0x)?[0-9a-f]+', r'\1X',
                      text)
        text = re.sub(r'\s+', ' ', text).strip()
        if text.startswith("nop") and cur and cur[-1].startswith("jmp "):
            continue  # padding jumped over (the jump stays last)
        cur.append(text)
a, b = sys.argv[1], sys.argv[2]
A, B = bodies.get(a, []), bodies.get(b, [])
if A and A == B:
    print(f"{a} and {b}: same code ({len(A)} instructions)")
else:
    first = next((i for i, (x, y) in enumerate(zip(A, B)) if x != y),
                 min(len(A), len(B)))
    print(f"{a} and {b}: differ at instruction {first} of {len(A)}/{len(B)}")
