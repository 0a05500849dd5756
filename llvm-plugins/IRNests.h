//===- IRNests.h - decan: loop nests outlined as one loop -------*- C++ -*-===//
//
// Part of decan. With -decan-nests (`decan flags --nests`), a loop whose
// inner loops are all innermost (a 2-level nest: gemm's k loop around its j
// loop), or a loop around short such nests (a 3-level nest), is outlined per
// variant like an innermost loop (IROutline.h): one copy of the whole nest per
// variant, the probes at the nest's entry and exits only, and the machine pass
// applies the variant's rules to every instruction of the nest
// (MachineVariants.cpp). Its id is "function:N<k>" (k: position among the
// function's nests, in header order); its copies hold the inner loops without
// their stubs, so an inner loop's own timed calls are the ones outside the
// nest's (docs/variants.md, "Loop nests").
//
// A nest is built where every inner loop is instrumented (the innermost
// selection: options, shape, body). Where a loop test of the nest (an
// outer or inner exit) reads memory or calls, its variant copies carry the
// iteration cap on every loop (IRIterationCap.h; without caps the nest is
// refused). Calls are kept in every variant and removed by NO_CALL, as in
// an innermost loop. A nest not built gets a record with the reason, when
// its inner loops are instrumented. Where a 2-level
// nest's calls are short by constant trip counts, the loop around it is
// timed instead when it is a 3-level nest of such nests and instrumented
// innermost loops (-decan-nest-deepen-below).
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_LLVM_PLUGINS_IRNESTS_H
#define DECAN_LLVM_PLUGINS_IRNESTS_H

#include "IRLoopTable.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/DebugLoc.h"
#include "llvm/IR/PassManager.h"

namespace llvm {
class OptimizationRemarkEmitter;
class Function;
class Loop;
class LoopInfo;
class ScalarEvolution;
} // namespace llvm

namespace decan {

class LoopFilter;
struct ExitMemory;
struct OutlinePlan;

/// Attribute on every copy of a nest: the machine pass rewrites the whole
/// nest, not one innermost loop.
inline constexpr const char *NestAttr = "decan-nest";

/// Whether -decan-nests was given.
bool nestsRequested();

/// One nest of a function, with its record (SkipReason set when it is not
/// outlined).
struct NestCandidate {
  llvm::Loop *L;
  llvm::DebugLoc Loc;
  LoopRecord Rec;
  /// The 3-level nest around this one (its index), or -1.
  int Within = -1;
};

/// The nests of \p F, in header order, each with its record: the 2-level
/// nests whose inner loops are all instrumented (\p InnerSelected), and
/// the 3-level ones around such nests whose calls are short by constant
/// trip counts (fewer source iterations than -decan-nest-deepen-below).
llvm::SmallVector<NestCandidate, 4>
findNests(llvm::Function &F, llvm::LoopInfo &LI, llvm::ScalarEvolution &SE,
          llvm::function_ref<bool(const llvm::Loop &)> InnerSelected);

/// Plans the nest \p N of \p NestsInF (shaped like the innermost loops,
/// IROutline.cpp) for the outliner, after the nest around it: its plan,
/// carried-memory judgement and exit memory are appended; a nest that
/// cannot be outlined, or is timed within the one around it, gets its
/// record and a remark.
void planNest(llvm::Function &F, llvm::FunctionAnalysisManager &FAM,
              const LoopFilter &Filter,
              llvm::MutableArrayRef<NestCandidate> NestsInF, NestCandidate &N,
              llvm::SmallVectorImpl<OutlinePlan> &Plans,
              llvm::SmallVectorImpl<llvm::StringRef> &MemDep,
              llvm::SmallVectorImpl<ExitMemory> &ExitMem,
              LoopTableBuilder &Table, llvm::OptimizationRemarkEmitter &ORE);

/// The carried-memory judgement of a nest (IROutline.cpp's carriedMemory
/// per inner loop): "other" where any inner loop has one, else "adjacent"
/// where any has one, else "". Dependences the outer level carries through
/// memory span a whole inner loop run; they are not judged.
llvm::StringRef nestCarriedMemory(llvm::ArrayRef<llvm::StringRef> Inner);

} // namespace decan

#endif // DECAN_LLVM_PLUGINS_IRNESTS_H
