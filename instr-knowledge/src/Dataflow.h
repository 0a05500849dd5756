//===- Dataflow.h - Reaching definitions in a loop body (internal) --------===//
//
// Part of decan. Which definitions reach each register read of a loop body,
// within the iteration or across the back edge (loop-carried), by register
// unit so sub- and super-registers alias correctly; what follows from them
// about addresses (affine registers, distances between accesses of one
// array, whether a load can read what a store wrote).
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_INSTRKNOWLEDGE_DATAFLOW_H
#define DECAN_INSTRKNOWLEDGE_DATAFLOW_H

#include "decan/InstrKnowledge/Instr.h"
#include "decan/InstrKnowledge/Verifier.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/iterator.h"
#include "llvm/ADT/iterator_range.h"

#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace decan {

class X86Knowledge;

/// Index of the "defined before the loop" pseudo definition.
constexpr unsigned EntryDef = ~0u - 1;

struct RegRead {
  unsigned Instr; ///< reading instruction (index into LoopBody::Instrs)
  unsigned Reg;   ///< register as the instruction names it
  unsigned Unit;  ///< register unit read
  /// Reaching definitions: instruction index (or EntryDef) and whether the
  /// value comes from a previous iteration; sorted, no duplicates.
  llvm::SmallVector<std::pair<unsigned, bool>, 2> Defs;
};

/// Reaching definitions over the loop CFG (Blocks[0] = header; edges to the
/// header are back edges).
class ReachingDefs {
public:
  ReachingDefs(const X86Knowledge &K, const LoopBody &L);
  const std::vector<RegRead> &reads() const { return Reads; }
  /// Reads of instruction \p I (as pointers into reads()).
  llvm::iterator_range<llvm::pointer_iterator<const RegRead *>>
  readsOf(unsigned I) const {
    const RegRead *B = Reads.data(), *E = B;
    if (I < ReadEnd.size()) {
      E = B + ReadEnd[I];
      B += ReadBegin[I];
    }
    return llvm::make_pointer_range(llvm::make_range(B, E));
  }
  /// Register units written by instruction \p I, with the register.
  llvm::ArrayRef<std::pair<unsigned, unsigned>> writesOf(unsigned I) const {
    return llvm::ArrayRef(WriteList).slice(WriteBegin[I],
                                           WriteBegin[I + 1] - WriteBegin[I]);
  }
  bool unitWrittenInLoop(unsigned Unit) const {
    return Unit < WrittenUnits.size() && WrittenUnits.test(Unit);
  }
  /// True when any unit of \p Reg is written in the loop; false for no
  /// register (0), so an absent base or index counts as invariant.
  bool regWrittenInLoop(unsigned Reg) const;

private:
  std::vector<RegRead> Reads; ///< an instruction's reads are contiguous
  std::vector<unsigned> ReadBegin, ReadEnd; ///< per instruction
  std::vector<std::pair<unsigned, unsigned>> WriteList;
  std::vector<unsigned> WriteBegin; ///< per instruction, and one past
  llvm::BitVector WrittenUnits;
  const X86Knowledge &K;
};

/// What several questions about one loop body share: the rules and both
/// dependence checks of every variant ask about REF, and the two checks of
/// a variant about the variant. bodyFacts() keeps them for the last few
/// bodies of this thread (compared in full: O(n), the analyses are not).
class BodyFacts {
public:
  BodyFacts(const X86Knowledge &K, const LoopBody &L) : RD(K, L) {}
  const ReachingDefs RD;
  /// affineDefs(K, L, RD), computed on first use.
  const std::vector<bool> &affine(const X86Knowledge &K,
                                  const LoopBody &L) const;
  /// The dependence graph (Verifier.cpp computes it on first use).
  mutable std::optional<std::vector<DepEdge>> Graph;

private:
  mutable std::optional<std::vector<bool>> Affine;
};
std::shared_ptr<const BodyFacts> bodyFacts(const X86Knowledge &K,
                                           const LoopBody &L);

/// Where a load reads relative to a store of the same array (same base,
/// index, scale, segment, symbol): in iteration i+k the load's first byte is
/// Delta + k * Step bytes from the first byte the store wrote in iteration
/// i. Known only when the array's registers move by constant steps.
struct ArrayDistance {
  bool Known = false;
  int64_t Delta = 0, Step = 0;
};
ArrayDistance arrayDistance(const X86Knowledge &K, const LoopBody &L,
                            const ReachingDefs &RD, unsigned Store,
                            unsigned Load);

/// True when it is proven that \p Load never reads a byte \p Store wrote,
/// in the same iteration or an earlier one: both address one array with
/// the same registers, each register moves by constant steps on every path
/// of an iteration (paths may differ in where, not in how much), and the
/// load's bytes stay ahead of or behind the store's in the direction they
/// move (`do { a[i] = y; } while (a[++i] != x)`, bzip2's partition loops
/// that swap the element just read). False when unknown.
bool neverReadsStored(const X86Knowledge &K, const LoopBody &L,
                      const ReachingDefs &RD, unsigned Store, unsigned Load);

/// Per instruction: true when the GPR values it writes follow from loop
/// entry values and constant steps alone (induction updates, address
/// arithmetic on them), false when they depend on loaded data, vector
/// values or anything else the loop computes from memory. An address built
/// from affine values carries no data chain: where iteration i accesses is
/// known before the loop runs.
std::vector<bool> affineDefs(const X86Knowledge &K, const LoopBody &L,
                             const ReachingDefs &RD);

/// True when every definition of \p Reg reaching instruction \p I is from
/// before the loop or affine (\p Affine from affineDefs).
bool affineAt(const X86Knowledge &K, const ReachingDefs &RD,
              const std::vector<bool> &Affine, unsigned I, unsigned Reg);

} // namespace decan

#endif // DECAN_INSTRKNOWLEDGE_DATAFLOW_H
