//===- Verifier.h - Variants keep REF's dependences, add none -------------===//
//
// Part of decan. Builds the dependence graph of a loop body (true register
// and flag dependences by register unit, memory store->load dependences,
// each within an iteration or loop-carried) over instruction ids, and checks
// a variant in both directions (thesis chapter 6):
//
//   no new dependence   every edge of the variant is a dependence REF has,
//                       directly or through instructions the variant
//                       deleted or changed (a bridge: consumers of a
//                       deleted result now read its passed-through input);
//   none lost           every dependence REF has between instructions the
//                       variant keeps is still there, directly or through a
//                       bridge. A deleted instruction passes on only its
//                       pass-through input (X86Knowledge::passThrough): its
//                       other inputs (a divisor, an address) go with it.
//
// Write-after-write and write-after-read register edges are left out:
// register renaming removes them; partial writes that merge count as reads.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_INSTRKNOWLEDGE_VERIFIER_H
#define DECAN_INSTRKNOWLEDGE_VERIFIER_H

#include "decan/InstrKnowledge/Instr.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace decan {

class X86Knowledge;

/// Source id of values that come from before the loop.
constexpr unsigned EntryId = ~0u - 1;

struct DepEdge {
  unsigned From = 0, To = 0; ///< instruction ids (EntryId: from outside)
  unsigned Resource = 0;     ///< register unit, or MemResource
  bool Carried = false;      ///< from the previous iteration
  bool operator<(const DepEdge &O) const;
  bool operator==(const DepEdge &O) const;
};
constexpr unsigned MemResource = ~0u - 3;

/// All dependence edges of \p Loop between instruction ids (padding and
/// edges inside one id are skipped), sorted and unique.
std::vector<DepEdge> dependenceGraph(const X86Knowledge &K,
                                     const LoopBody &Loop);

/// Fails (with the first offending edge spelled out) when \p Variant has a
/// dependence edge that \p Ref lacks, directly or through instructions
/// that \p Variant deleted or bridged.
llvm::Error verifyNoNewDependences(const X86Knowledge &K, const LoopBody &Ref,
                                   const LoopBody &Variant);

/// Fails when a register dependence that \p Ref has between two
/// instructions \p Variant keeps (and that the kept forms still write and
/// read) is missing from \p Variant. Memory dependences a variant drops
/// (its stores became loads or vanished) do not fail: they are appended to
/// \p LostMemory, and the variant's saturation is then a bound.
llvm::Error verifyKeptDependences(const X86Knowledge &K, const LoopBody &Ref,
                                  const LoopBody &Variant,
                                  std::vector<DepEdge> *LostMemory = nullptr);

/// Human-readable edge, e.g. "RAW XMM2 from #1 to #8 (same iteration)".
std::string describeEdge(const X86Knowledge &K, const DepEdge &E);

} // namespace decan

#endif // DECAN_INSTRKNOWLEDGE_VERIFIER_H
