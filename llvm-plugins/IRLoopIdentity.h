//===- IRLoopIdentity.h - decan: a loop's identity across builds ----------===//
//
// Part of decan. Loop ids ("function:L<index>") number loops by header
// position, which changes when PGO or a flag changes inlining, unrolling or
// layout. The source identity names the loop by where it is written: the
// function it is written in, its file:line:column, the loops around it and
// the call sites it was inlined through (decan_loop_desc::source, abi.h).
// The iteration step says how many source iterations one iteration runs, so
// a loop vectorised or unrolled differently is the same work per source
// iteration. `decan compare` matches loops by both (docs/pgo.md).
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_LLVM_PLUGINS_IRLOOPIDENTITY_H
#define DECAN_LLVM_PLUGINS_IRLOOPIDENTITY_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/DebugLoc.h"

#include <string>

namespace llvm {
class DILocation;
class Loop;
class Module;
class ScalarEvolution;
class Value;
} // namespace llvm

namespace decan {

/// Where \p L is written: the start location of its loop metadata (the
/// `for`), else its latch's branch (clang puts the `for` there too), else
/// Loop::getStartLoc. The vectoriser's vector body has no location in its
/// metadata (its preheader's branch carries the increment's column), so
/// the latch gives it the same position as its remainder: one source loop,
/// one identity, whatever the vectoriser made of it.
llvm::DebugLoc loopStartLoc(const llvm::Loop &L);

/// loopStartLoc of every loop (any depth) of \p M's function definitions
/// that has one: the positions a `-decan-tune=FILE:LINE:COL` may name.
llvm::SmallVector<const llvm::DILocation *, 16>
moduleLoopStarts(llvm::Module &M);

/// "ORIGIN|FILE:LINE:COL|NEST|INLINED" for the loop starting at \p Loc
/// (\p L: its LoopInfo loop, or null for an irreducible cycle); "" without
/// a debug location.
std::string loopSourceIdentity(const llvm::Loop *L, const llvm::DebugLoc &Loc);

/// The source name of \p V, a loop's live-in, where debug information gives
/// one: its variable's, else that of the array or pointer it is computed
/// from (a pointer advanced before the loop, `x + off`, is `x`'s); "" when
/// none. GROUPING's groups are named by it (docs/tool.md, "Loop names").
std::string sourceName(llvm::Value *V);

/// The smallest nonzero constant step of \p L's integer induction
/// variables (header phis that are affine recurrences of \p L), or 0;
/// times the iterations of its enclosing loop it runs when unroll-and-jam
/// jammed them into it (a tuning candidate, IRTuneCandidates.h).
unsigned loopIterationStep(const llvm::Loop &L, llvm::ScalarEvolution &SE);

} // namespace decan

#endif // DECAN_LLVM_PLUGINS_IRLOOPIDENTITY_H
