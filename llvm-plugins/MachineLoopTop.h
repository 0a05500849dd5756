//===- MachineLoopTop.h - decan: where each copy's loop starts -----------===//
//
// Part of decan. Code placement of the outlined copies (issue 26): every
// copy of a loop, REF's and each variant's, starts its loop at the start of
// a 64-byte line, so Sat compares the same fetch windows and not where the
// linker put each copy (a 33-byte loop at offset 48 crosses one more window
// than at 16 and takes ~1.6x the cycles). A nest's copies align their
// inner loops the same way: fdtd-2d's inner loop sat at offset 16 in REF
// and 32 in DL1 (its RIP-relative operands are longer), 3 lines instead of
// 2, and DL1 read 1.1-1.45x REF in 5 of 8 runs (its bytes at offset 0:
// never; bench/slow-variants/nest_placement).
//
// The padding before the loop top is jumped over (issue 29, compile cost):
// the block before the top in layout ends with a jump to it, so every copy
// runs the same instructions whatever the padding's size, and the function
// itself needs no alignment. It starts where the previous function ends
// (the section is 64-byte aligned for the loop's sake), which saves about
// half a line per copy against an aligned function start.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_LLVM_PLUGINS_MACHINELOOPTOP_H
#define DECAN_LLVM_PLUGINS_MACHINELOOPTOP_H

namespace llvm {
class MachineFunction;
class MachineLoop;
} // namespace llvm

namespace decan {

/// Bytes every copy's loop top is aligned to.
constexpr unsigned LoopTopAlign = 64;

/// Puts the first block of \p L in layout at the start of a 64-byte line
/// (past placement's -align-loops choice) and makes the block before it
/// jump to it over the padding; in a nest (`decan flags --nests`) each
/// inner loop's first block too, its padding jumped over where the block
/// before it can be analysed (else it runs, once per outer iteration). The
/// function keeps a 64-byte alignment only where the padding cannot be jumped
/// over (the top is the entry block, or the block before it ends in a branch
/// the target cannot analyse): then the padding runs, as alike in every copy.
void alignLoopTop(llvm::MachineFunction &MF, const llvm::MachineLoop &L);

} // namespace decan

#endif
