//===- IRTune.h - decan: optimization candidates of hot loops -------------===//
//
// Part of decan. `-mllvm -decan-tune=FILE:LINE:COL,...` (what `decan flags
// --tune REPORT.json` prints): each function holding one of those loops is
// compiled once per candidate — the same code with other loop hints for
// that loop (vectorisation width, interleave count, unroll count, scalar) —
// as internal noinline clones `F.decan.tune.<candidate>`, and F becomes a
// dispatcher that hands its calls to the clones in turn. The clones compute
// what F computes (only the compiler's choices differ), so they run in
// place of F; decan times each clone's loops like any loop, and `decan
// tune` compares the candidates (docs/pgo.md).
//
// `-mllvm -decan-loop-hints=FILE:LINE:COL=CANDIDATE,...` (`decan flags
// --apply tune.json`) puts a candidate's hints on the loop in the next
// build.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_LLVM_PLUGINS_IRTUNE_H
#define DECAN_LLVM_PLUGINS_IRTUNE_H

#include "llvm/IR/PassManager.h"

namespace decan {

/// Whether -decan-tune names any loop.
bool tuneGiven();
/// Whether -decan-loop-hints names any loop.
bool loopHintsGiven();

/// Clones the functions of the loops -decan-tune names, one per candidate.
/// Runs at the start of the pipeline, before any loop is transformed.
class TuneCandidatesPass : public llvm::PassInfoMixin<TuneCandidatesPass> {
public:
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);
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
