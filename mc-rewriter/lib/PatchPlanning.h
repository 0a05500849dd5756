//===- PatchPlanning.h - How each loop's header is patched ----------------===//
//
// Part of decan. A rewritten loop is entered through a jump written over
// its header: 5 bytes (`jmp stub`) where the loop has them, else 2 bytes
// (`jmp rel8`) to a trampoline holding the 5-byte jump, placed in bytes no
// code reaches within 127 bytes: the loop's own bytes past the patch,
// dead padding after a jump, or padding between functions.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_REWRITER_PATCHPLANNING_H
#define DECAN_REWRITER_PATCHPLANNING_H

#include "FunctionCFG.h"

#include "llvm/ADT/DenseSet.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace decan::rewriter {

/// Whether the jump to the stub fits at the loop's \p Header ("" when it
/// does, else why not). \p ShortHeader: room for a 2-byte jump only.
std::string checkPatchRoom(const FunctionCFG &CFG,
                           const llvm::DenseSet<const CFGBlock *> &InBody,
                           const CFGBlock &Header, bool &ShortHeader);

/// Where `jmp rel8` at the header of \p L reaches 5 bytes of its own
/// blocks past the 2 patched ones, the nearest to the header; 0 if nowhere.
uint64_t trampolineInLoop(const LoopCandidate &L);

/// Free padding, start -> end: adds the gaps between functions of \p Bin
/// that hold nothing but int3 and NOPs.
void addPaddingBetweenFunctions(const BinaryImage &Bin,
                                const decan::X86Target &X86,
                                std::map<uint64_t, uint64_t> &Free);

/// Takes 5 bytes of \p Free within reach of a `jmp rel8` at \p At, the
/// nearest; 0 when none.
uint64_t takeTrampolineSlot(std::map<uint64_t, uint64_t> &Free, uint64_t At);

/// Takes [\p Begin, \p End) out of \p Free (when one free range holds it).
void takeRange(std::map<uint64_t, uint64_t> &Free, uint64_t Begin,
               uint64_t End);

/// Places a trampoline in \p Free for each loop that still needs one
/// (LoopCandidate::Trampoline is ~0), and takes its bytes; a loop without
/// one within reach is skipped.
void placeTrampolines(std::map<uint64_t, uint64_t> &Free,
                      std::vector<LoopCandidate> &Loops, FinderStats &Stats);

} // namespace decan::rewriter

#endif // DECAN_REWRITER_PATCHPLANNING_H
