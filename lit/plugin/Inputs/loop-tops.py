#!/usr/bin/env python3
"""Where each copy of a loop starts in its 64-byte line (issue 26: every
copy of a loop must sit alike relative to fetch windows).

Reads `llvm-objdump -d` of a plugin-built object (functions f.decan.L0.REF,
f.decan.L0.LS, ...) or `decan rewrite --disasm` (copies "f:L0.REF @0x...:",
"f:L0: original header 0x..., offset N", the relocated original
"f:L0.orig"). A copy's loop top is the lowest target of a branch inside the
copy that lands inside it (but a capped copy's trampoline). A copy that is
only a jump to its loop's REF copy is one the runtime never runs (its
variant's rules failed: llvm-plugins/MachineUnusedCopy.h): counted apart,
as "jumps to REF"; one that is only a jump to another copy of its loop has
the same code as that copy after its rules (MachineSharedCode.h): "jumps
to a copy". A copy whose end jumps into another copy of its loop shares
that copy's code after the end probe: "tails shared" counts those jumps,
"own tail in N copies" the copies that jump into no other copy's tail.
Prints one line per loop: its measured copies and
the set of their tops modulo 64 (and, from --disasm, the original's offset
and the relocated original's), then a summary line; from objdump also the
padding (llvm-plugins/MachineLoopTop.h): the most NOP bytes any copy has
right before its top and after its last instruction, and how many copies
run the padding before their top (the block before it does not jump over
it). For nest copies (f.decan.N0.REF, ...) also the offsets of every
loop's top in them, inner loops included (the targets of backward
branches)."""
import re
import sys

objdump_fn = re.compile(r'^([0-9a-f]+) <(.+\.decan\.[LN]\d+)\.([A-Z0-9_]+)>:')
objdump_other = re.compile(r'^([0-9a-f]+) <(.+)>:')
objdump_jump_copy = re.compile(
    r'^\s*[0-9a-f]+:\s+jmp\s+\S+ <(.+\.decan\.[LN]\d+)\.([A-Z0-9_]+)>')
objdump_jump_tail = re.compile(
    r'^\s*[0-9a-f]+:\s+jmp\s+\S+ <(.+\.decan\.[LN]\d+)\.([A-Z0-9_]+)\+0x')
objdump_branch = re.compile(r'^\s*([0-9a-f]+):.*\sj[a-z]+\s+(?:0x)?([0-9a-f]+)\b')
objdump_insn = re.compile(r'^\s*([0-9a-f]+):\s+(\S+)')
disasm_copy = re.compile(r'^(\S+:L\d+)\.([A-Za-z0-9_]+) @0x([0-9a-f]+):')
disasm_orig = re.compile(r'^(\S+:L\d+): original header 0x([0-9a-f]+), offset')
disasm_branch = re.compile(r'^\s+j[a-z]+\s+0x([0-9a-f]+)')

copies = []  # [loop, variant, start, [branch targets], [(address, mnemonic)],
#             [(branch address, target)]]
trampolines = set()  # --disasm copies that start with a jmp
first_line = False
original = {}
jumps = {}  # loop -> copies that only jump to its REF
jumps_copy = {}  # loop -> copies that only jump to another of its copies
tails = {}  # loop -> jumps into another copy's tail
sharing = set()  # (loop, variant) of the copies with such a jump
for line in sys.stdin:
    m = objdump_fn.match(line)
    if m:
        copies.append([m.group(2), m.group(3), int(m.group(1), 16), [], [], []])
        continue
    m = disasm_copy.match(line)
    if m:
        copies.append([m.group(1), m.group(2), int(m.group(3), 16), [], [], []])
        first_line = True
        continue
    m = disasm_orig.match(line)
    if m:
        original[m.group(1)] = int(m.group(2), 16)
        continue
    m = objdump_other.match(line)
    if m:  # another function: where the copy before it ends
        copies.append([None, None, int(m.group(1), 16), [], [], []])
        continue
    if first_line and line.strip().startswith("jmp"):
        trampolines.add((copies[-1][0], copies[-1][1]))
    first_line = False
    m = objdump_jump_copy.match(line)
    if m and copies and copies[-1][0] == m.group(1) and not copies[-1][3]:
        kind = jumps if m.group(2) == "REF" else jumps_copy
        kind[m.group(1)] = kind.get(m.group(1), 0) + 1
        copies.pop()
        continue
    m = objdump_jump_tail.match(line)
    if m and copies and copies[-1][0] == m.group(1) and \
            copies[-1][1] != m.group(2):
        tails[m.group(1)] = tails.get(m.group(1), 0) + 1
        sharing.add((copies[-1][0], copies[-1][1]))
    m = objdump_insn.match(line)
    if m and copies:
        copies[-1][4].append((int(m.group(1), 16), m.group(2)))
    m = objdump_branch.match(line) or disasm_branch.match(line)
    if m and copies:
        copies[-1][3].append(int(m.group(m.lastindex), 16))
        if m.re is objdump_branch:
            copies[-1][5].append((int(m.group(1), 16), int(m.group(2), 16)))



def padding(insns, top, end):
    """NOP bytes right before \p top, whether they run, and the NOP bytes
    after the copy's last other instruction up to \p end."""
    before = [(a, mn) for a, mn in insns if a < top]
    i = len(before)
    while i and before[i - 1][1].startswith("nop"):
        i -= 1
    pad = top - before[i][0] if i < len(before) else 0
    runs = pad > 0 and i > 0 and before[i - 1][1] != "jmp"
    after = [a for a, mn in insns if not mn.startswith(("nop", "int3"))]
    last = max(after)
    tail = end - next((a for a, _ in insns if a > last), end)
    return pad, runs, tail


def back_edge_targets(insns, branches, start, end):
    """Targets of the copy's back edges: branches to a block that dominates
    the branch (a backward jump to a remainder loop's preheader is none)."""
    insns = [(a, mn) for a, mn in insns if start <= a < end]
    if not insns:
        return set()
    branch_at = {a: t for a, t in branches}
    leaders = {insns[0][0]} | {t for t in branch_at.values()
                               if start <= t < end}
    for (a, mn), nxt in zip(insns, insns[1:]):
        if a in branch_at or mn.startswith("ret"):
            leaders.add(nxt[0])
    order = sorted(leaders)
    block_of = {}
    succs = {b: set() for b in order}
    for i, (a, mn) in enumerate(insns):
        b = max(x for x in order if x <= a)
        block_of[a] = b
        last = i + 1 == len(insns) or insns[i + 1][0] in leaders
        if not last:
            continue
        t = branch_at.get(a)
        if t is not None and start <= t < end:
            succs[b].add(t)
        if mn != "jmp" and not mn.startswith("ret") and i + 1 < len(insns):
            succs[b].add(insns[i + 1][0])
    preds = {b: {p for p in order if b in succs[p]} for b in order}
    dom = {b: set(order) for b in order}
    dom[order[0]] = {order[0]}
    changed = True
    while changed:
        changed = False
        for b in order[1:]:
            ps = [dom[p] for p in preds[b]]
            new = ({b} | set.intersection(*ps)) if ps else {b}
            if new != dom[b]:
                dom[b], changed = new, True
    return {t for a, t in branches
            if a in block_of and t in dom and t in dom[block_of[a]]}


starts = sorted(c[2] for c in copies)
loops, relocated = {}, {}
most_before = most_after = None
padding_runs = 0
nest_tops, nest_copies = set(), 0
for loop, variant, start, targets, insns, back in copies:
    if loop is None:
        continue
    end = next((s for s in starts if s > start), start + 4096)
    if ".decan.N" in loop:  # a nest: every loop's top is a back edge's target
        nest_tops |= {t % 64 for t in back_edge_targets(insns, back, start,
                                                         end)}
        nest_copies += 1
    inside = [t for t in targets if start <= t < end]
    if not inside:
        print(f"{loop}.{variant}: no loop found")
        continue
    if (loop, variant) in trampolines:
        # A capped copy's jrcxz goes back to a jmp at its start, no loop.
        inside = [t for t in inside if t != start] or inside
    if variant == "orig":  # the rewriter's relocated original
        relocated[loop] = min(inside) % 64
        continue
    loops.setdefault(loop, []).append((variant, min(inside) % 64))
    if insns and not (loop, variant) in trampolines:
        pad, runs, tail = padding(insns, min(inside), end)
        most_before = max(most_before or 0, pad)
        most_after = max(most_after or 0, tail)
        padding_runs += runs
spread = unaligned = moved = 0
for loop, tops in loops.items():
    offsets = sorted({t for _, t in tops})
    line = f"{loop}: {len(tops)} copies, tops modulo 64: {' '.join(map(str, offsets))}"
    spread += len(offsets) > 1
    unaligned += offsets != [0]
    if loop in jumps:
        line += f"; {jumps[loop]} jumps to REF"
    if loop in jumps_copy:
        line += f"; {jumps_copy[loop]} jumps to a copy"
    if loop in tails:
        own = sum((loop, v) not in sharing for v, _ in tops)
        line += f"; {tails[loop]} tails shared, own tail in {own} copies"
    if loop in original:
        line += f"; original {original[loop] % 64}"
    if loop in relocated:
        line += f", relocated {relocated[loop]}"
        moved += relocated[loop] != original.get(loop, -1) % 64
    print(line)
print(f"{len(loops)} loops: {spread} with copies at two offsets or more, "
      f"{unaligned} with a copy off a line's start, {moved} with the "
      f"relocated original off the original's offset")
if most_before is not None:
    print(f"padding: at most {most_before} bytes before a loop top, "
          f"{most_after} after a copy, run in {padding_runs} copies")
if nest_copies:
    print(f"nests: {nest_copies} copies, their loops' tops (back-edge "
          f"targets) modulo 64: {' '.join(map(str, sorted(nest_tops)))}")
