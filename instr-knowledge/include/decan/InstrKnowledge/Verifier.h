//===- Verifier.h - No new dependence in a variant ------------------------===//
//
// Part of decan. Builds the dependence graph of a loop body (true register
// and flag dependences by register unit, memory store->load dependences,
// each within an iteration or loop-carried) over instruction ids, and checks
// that a variant has no edge its REF lacks (thesis 6.5.2). Write-after-write
// and write-after-read register edges are left out: register renaming
// removes them; partial writes that merge count as reads.
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
constexpr unsigned FlagsResource = ~0u - 2; ///< unused: flags use reg units
constexpr unsigned MemResource = ~0u - 3;

/// All dependence edges of \p Loop between instruction ids (padding and
/// edges inside one id are skipped), sorted and unique.
std::vector<DepEdge> dependenceGraph(const X86Knowledge &K,
                                     const LoopBody &Loop);

/// Fails (with the first offending edge spelled out) when \p Variant has a
/// dependence edge that \p Ref lacks.
llvm::Error verifyNoNewDependences(const X86Knowledge &K, const LoopBody &Ref,
                                   const LoopBody &Variant);

/// Human-readable edge, e.g. "RAW XMM2 from #1 to #8 (same iteration)".
std::string describeEdge(const X86Knowledge &K, const DepEdge &E);

} // namespace decan

#endif // DECAN_INSTRKNOWLEDGE_VERIFIER_H
