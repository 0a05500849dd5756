//===- IRTune.h - decan: optimization candidates of hot loops -------------===//
//
// Part of decan. `-mllvm -decan-tune=FILE:LINE:COL,...` (what `decan flags
// --tune REPORT.json` prints): once the function simplification pipeline is
// done (inlining, SROA) and before the vectoriser, each of those loops (or
// its parent loop, for a candidate that transforms the nest, where that
// parent is itself inside a loop) is extracted into a function, copied
// once per candidate (IRTuneCandidates.h) as internal noinline clones
// `F.decan.tune.<candidate>`, and the place it was called from hands each
// call of the loop to the next clone in turn: a kernel called once with an
// inner loop called N^2 times tries every candidate N^2/K times. Just before
// the vectoriser each clone's loop gets its candidate's hints. The clones
// compute what the loop computes: a candidate that may reorder floating-point
// arithmetic is not built without -decan-tune-fast-math, and after the
// vectoriser a clone that reassociates what the default keeps in order is
// refused (warning). decan times each clone's loops like any loop, and `decan
// tune` compares them (docs/pgo.md).
//
// `-mllvm -decan-loop-hints=FILE:LINE:COL=CANDIDATE,...` (`decan flags
// --apply tune.json`) puts a candidate's hints on the loop in the next
// build. A position of either option, in the file being compiled, that no
// loop starts at is an error listing the positions of that file's loops.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_LLVM_PLUGINS_IRTUNE_H
#define DECAN_LLVM_PLUGINS_IRTUNE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/PassManager.h"

#include <string>

namespace llvm {
class DILocation;
class Loop;
class PHINode;
} // namespace llvm

namespace decan {

/// Whether -decan-tune names any loop.
bool tuneGiven();
/// Whether -decan-loop-hints (or -decan-tune) names any loop.
bool loopHintsGiven();
/// The -decan-tune positions.
llvm::ArrayRef<std::string> tunePositions();
/// Whether -decan-tune-fast-math lets candidates reorder FP arithmetic.
bool tuneFastMath();

/// "a.c" names "dir/a.c" and "/abs/dir/a.c" (and the other way round), not
/// "xa.c".
bool fileMatches(llvm::StringRef Want, llvm::StringRef File);

/// "dir/a.c:3:5" matches "a.c:3:5" and "/abs/dir/a.c:3:5", not "xa.c:3:5".
bool positionMatches(llvm::StringRef Want, const llvm::DILocation &DL);

/// Whether \p Phi, a header phi of \p L, carries floating-point arithmetic
/// done in order (no `reassoc`) around the loop: a reduction's accumulator.
bool carriesInOrderFP(const llvm::Loop &L, const llvm::PHINode &Phi);

/// Whether vectorising or interleaving \p L (an innermost loop) could
/// reorder floating-point arithmetic it does in order: a recurrence through
/// a phi or through memory at a loop-invariant address (`t[i][j] += ...`
/// with t possibly aliasing the operands), computed without `reassoc`.
bool mayReorderFP(const llvm::Loop &L);

/// Checks the -decan-tune and -decan-loop-hints positions against the loops
/// of the file compiled. Runs at the start of the pipeline.
class TunePositionsCheckPass
    : public llvm::PassInfoMixin<TunePositionsCheckPass> {
public:
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }
};

/// Extracts the loops -decan-tune names and copies them per candidate,
/// called in turn. Runs after simplification, before the vectoriser.
class TuneCandidatesPass : public llvm::PassInfoMixin<TuneCandidatesPass> {
public:
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);
  static bool isRequired() { return true; }
};

/// After the vectoriser: refuses a clone that reassociates floating-point
/// arithmetic its default keeps in order (its calls go to the default): one
/// of its loops carries more in-order FP accumulators (lanes of vector
/// accumulators counted) than any loop of the default, i.e. partial sums
/// that are combined at the end in another order. `opt -passes=
/// decan-tune-verify` runs it alone.
class TuneVerifyPass : public llvm::PassInfoMixin<TuneVerifyPass> {
public:
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }
};

/// Puts the hints of the candidates -decan-loop-hints chose on their loops.
/// Runs before the loop vectoriser.
class ApplyLoopHintsPass : public llvm::PassInfoMixin<ApplyLoopHintsPass> {
public:
  llvm::PreservedAnalyses run(llvm::Function &F,
                              llvm::FunctionAnalysisManager &AM);
  static bool isRequired() { return true; }
};

} // namespace decan

#endif // DECAN_LLVM_PLUGINS_IRTUNE_H
