//===- NestFinder.h - 2-level loop nests of a prebuilt binary -------------===//
//
// Part of decan. With `decan run --nests` the rewriter also measures each
// 2-level nest -- an outer loop whose inner loops are all innermost loops
// the rewriter can move -- as one loop, as the plugin does with
// `decan flags --nests` (docs/variants.md, "Loop nests"): id `f:N<k>` (k:
// the nest's position among the function's nests in header order), its
// copies hold the inner loops without their own probes, the variant rules
// apply to the whole nest (every inner loop's exit test counts as an exit
// test), and its descriptor carries DECAN_DESC_NEST. A nest is refused when
// it calls, or (when its variants are built: VariantCopies.cpp) when a loop
// test of the nest depends on a load. A rewritten nest takes its inner
// loops with it: they are not patched on their own (no code outside the
// nest reaches them), so shares nest without overlap.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_REWRITER_NESTFINDER_H
#define DECAN_REWRITER_NESTFINDER_H

#include "decan/InstrKnowledge/X86Target.h"
#include "decan/Rewriter/Binary.h"
#include "decan/Rewriter/LoopFinder.h"

#include <map>
#include <string>
#include <vector>

namespace decan::rewriter {

/// The nests of \p Bin whose inner loops are all rewritable innermost loops
/// of \p Loops (findLoops' result), numbered per function by header
/// address (LoopCandidate::Nest; SkipReason says why one cannot be
/// rewritten). Serial: nests are asked for, and cost a second decode of
/// each function with loops.
std::vector<LoopCandidate> findNests(const BinaryImage &Bin,
                                     const decan::X86Target &X86,
                                     const std::vector<LoopCandidate> &Loops,
                                     bool WithLines = true);

/// Keeps the nest candidates \p Cands of one function whose inner loops
/// (LoopCandidate::InnerIndices) \p Rewritable accepts, numbered by header
/// address (the plugin numbers only nests whose inner loops it selected).
std::vector<LoopCandidate>
numberNests(std::vector<LoopCandidate> Cands,
            llvm::function_ref<bool(unsigned InnerIndex)> Rewritable);

/// Each nest's id -> its inner loops' ids, and each inner loop's id -> its
/// nest's: a selection (`--loops`, a profile run's loops) takes them
/// together.
std::map<std::string, std::vector<std::string>>
nestRelatedIds(const std::vector<LoopCandidate> &Loops);

/// The loop finder's step for nests: \p F's outer loops whose inner loops
/// are all innermost, with the finder's checks, not yet numbered
/// (LoopFinder.cpp).
std::vector<LoopCandidate> outerLoopCandidates(const BinaryImage &Bin,
                                               const decan::X86Target &X86,
                                               const FunctionRange &F);

/// The loop finder's DWARF steps (LoopFinder.cpp): the loop's line, and
/// the source variables in registers at its header.
void findLine(const BinaryImage &Bin, LoopCandidate &L);
void findRegisterNames(const BinaryImage &Bin, const decan::X86Target &X86,
                       LoopCandidate &L);

} // namespace decan::rewriter

#endif // DECAN_REWRITER_NESTFINDER_H
