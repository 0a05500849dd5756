//===- IRNests.cpp - decan: loop nests outlined as one loop ---------------===//
//
// Part of decan. See IRNests.h.
//
//===----------------------------------------------------------------------===//

#include "IRNests.h"
#include "IRIterationCap.h"
#include "IRLoopIdentity.h"
#include "IROutlinePlan.h"
#include "IRSelection.h"
#include "IRVariantCopies.h"
#include "decan/abi.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/AliasAnalysis.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Support/CommandLine.h"

using namespace llvm;
using namespace decan;

#define DEBUG_TYPE "decan"

static cl::opt<bool> DecanNests(
    "decan-nests",
    cl::desc("Also outline each loop nest whose inner loops are "
             "instrumented (2 levels, or 3 around short 2-level nests) as "
             "one loop with its variants (id F:N<k>; `decan flags --nests`)"),
    cl::init(false));

static cl::opt<unsigned> NestDeepenBelow(
    "decan-nest-deepen-below", cl::init(8192), cl::Hidden,
    cl::desc("With -decan-nests, time a 2-level nest at the loop around it "
             "(a 3-level nest) when a call of it runs fewer source "
             "iterations than this, as constant trip counts bound them "
             "(0: never)"));

bool decan::nestsRequested() { return DecanNests; }

/// Whether \p L is a 2-level nest whose inner loops are all instrumented.
static bool isTwoLevelNest(const Loop &L,
                           function_ref<bool(const Loop &)> InnerSelected) {
  return !L.isInnermost() && all_of(L.getSubLoops(), [&](Loop *S) {
    return S->isInnermost() && InnerSelected(*S);
  });
}

/// The source iterations one call of the 2-level nest \p L runs at most:
/// its trip count times its inner loops' largest, from constant bounds
/// (0 where one is unknown).
static uint64_t nestCallIterations(const Loop &L, ScalarEvolution &SE) {
  uint64_t Inner = 0;
  for (const Loop *S : L.getSubLoops())
    Inner = std::max<uint64_t>(Inner, SE.getSmallConstantMaxTripCount(S));
  return Inner * SE.getSmallConstantMaxTripCount(&L);
}

/// Whether \p L is a 3-level nest worth timing: each sub-loop is an
/// instrumented innermost loop or a 2-level nest whose calls are known to
/// be short (below -decan-nest-deepen-below source iterations: the probes'
/// and the copy's fixed cost would weigh on every one of its samples), at
/// least one the latter.
static bool isShortNestsLoop(const Loop &L, ScalarEvolution &SE,
                             function_ref<bool(const Loop &)> InnerSelected) {
  // A top-level loop of main runs once: a nest there would have one call,
  // nothing to rotate variants over, where its sub-nests have many.
  if (L.getLoopDepth() == 1 && L.getHeader()->getParent()->getName() == "main")
    return false;
  bool AnyNest = false;
  for (const Loop *S : L.getSubLoops()) {
    if (S->isInnermost()) {
      if (!InnerSelected(*S))
        return false;
      continue;
    }
    uint64_t Iterations = nestCallIterations(*S, SE);
    if (!isTwoLevelNest(*S, InnerSelected) || !Iterations ||
        Iterations >= NestDeepenBelow)
      return false;
    AnyNest = true;
  }
  return AnyNest;
}

/// Whether a loop test of the nest (an exit of \p L or of an inner loop)
/// depends, within the nest, on a load or a call: a variant, which never
/// writes program memory, could change how often a loop runs.
static bool testsReadMemory(const Loop &L) {
  SmallVector<BasicBlock *, 8> Exiting;
  for (const Loop *Level : L.getLoopsInPreorder())
    Level->getExitingBlocks(Exiting);
  SmallVector<Instruction *, 16> Work;
  for (BasicBlock *BB : Exiting) {
    Instruction *T = BB->getTerminator();
    if (!isa<BranchInst>(T) && !isa<SwitchInst>(T))
      return true;
    for (Value *Op : T->operands())
      if (auto *I = dyn_cast<Instruction>(Op))
        Work.push_back(I);
  }
  SmallPtrSet<Instruction *, 32> Seen;
  while (!Work.empty()) {
    Instruction *I = Work.pop_back_val();
    if (!L.contains(I) || !Seen.insert(I).second)
      continue;
    if (I->mayReadFromMemory())
      return true;
    for (Value *Op : I->operands())
      if (auto *D = dyn_cast<Instruction>(Op))
        Work.push_back(D);
  }
  return false;
}

/// Why the nest \p L is not outlined, or "" when it is.
static std::string nestSkipReason(const Function &F, const Loop &L) {
  if (F.hasOptNone())
    return OptNoneSkipReason;
  if (std::optional<std::string> Why = bodySkipReason(L))
    return *Why;
  // With caps, a variant copy whose loop test reads memory ends: every
  // loop of it counts its iterations down (IRIterationCap.h).
  if (!iterationCapsEnabled() && testsReadMemory(L))
    return "a loop test of the nest reads memory (a variant could change "
           "its trip counts)";
  return "";
}

SmallVector<NestCandidate, 4>
decan::findNests(Function &F, LoopInfo &LI, ScalarEvolution &SE,
                 function_ref<bool(const Loop &)> InnerSelected) {
  SmallVector<NestCandidate, 4> Nests;
  // LoopInfo's preorder follows the dominator tree; number in header order
  // (docs/design.md) as the innermost loops are.
  DenseMap<const BasicBlock *, unsigned> Pos;
  for (BasicBlock &BB : F)
    Pos[&BB] = Pos.size();
  for (Loop *L : LI.getLoopsInPreorder())
    if (isTwoLevelNest(*L, InnerSelected) ||
        isShortNestsLoop(*L, SE, InnerSelected))
      Nests.push_back(NestCandidate{L, loopStartLoc(*L), {}, -1});
  llvm::sort(Nests, [&](const NestCandidate &A, const NestCandidate &B) {
    return Pos[A.L->getHeader()] < Pos[B.L->getHeader()];
  });
  // A 2-level nest inside a 3-level one is timed there.
  for (NestCandidate &Sub : Nests)
    for (auto [Index, Around] : enumerate(Nests))
      if (Around.L == Sub.L->getParentLoop())
        Sub.Within = Index;
  for (auto [Index, N] : enumerate(Nests)) {
    LoopRecord &R = N.Rec;
    R.Function = F.getName().str();
    R.Index = Index;
    R.Nest = true;
    setRecordLocation(R, N.Loc);
    R.Source = loopSourceIdentity(N.L, N.Loc);
    R.IterationStep = loopIterationStep(*N.L, SE);
    R.SkipReason = nestSkipReason(F, *N.L);
  }
  return Nests;
}

/// A nest's plan (its copies are built with the innermost loops'), or its
/// record and a remark when it is not outlined.
void decan::planNest(Function &F, FunctionAnalysisManager &FAM,
                     const LoopFilter &Filter,
                     MutableArrayRef<NestCandidate> NestsInF, NestCandidate &N,
                     SmallVectorImpl<OutlinePlan> &Plans,
                     SmallVectorImpl<StringRef> &MemDep,
                     SmallVectorImpl<ExitMemory> &ExitMem,
                     LoopTableBuilder &Table, OptimizationRemarkEmitter &ORE) {
  auto &LI = FAM.getResult<LoopAnalysis>(F);
  auto &DT = FAM.getResult<DominatorTreeAnalysis>(F);
  auto &SE = FAM.getResult<ScalarEvolutionAnalysis>(F);
  OutlinePlan P;
  // Planned in header order: the 3-level nest around \p N first.
  if (N.Within >= 0 && N.Rec.SkipReason.empty() &&
      NestsInF[N.Within].Rec.SkipReason.empty())
    N.Rec.SkipReason = "its calls are short: timed within the nest around "
                       "it, " +
                       NestsInF[N.Within].Rec.id();
  if (N.Rec.SkipReason.empty())
    if (std::optional<std::string> Why = planLoop(F, N.L, DT, LI, SE, P))
      N.Rec.SkipReason = *Why;
  if (!N.Rec.SkipReason.empty()) {
    Table.addLoop(N.Rec, F.getComdat());
    ORE.emit([&] {
      return OptimizationRemarkMissed(DEBUG_TYPE, "LoopSkipped", N.Loc,
                                      N.L->getHeader())
             << "nest " << ore::NV("Loop", N.Rec.id())
             << " not instrumented: " << ore::NV("Reason", N.Rec.SkipReason);
    });
    return;
  }
  // Calls are measured as in an innermost loop: kept in every variant,
  // NO_CALL without them.
  N.Rec.VariantMask = Filter.variantMask();
  if (!loopCalls(*N.L))
    N.Rec.VariantMask &= ~(1u << DECAN_NO_CALL);
  P.Rec = N.Rec;
  SmallVector<StringRef, 4> Inner;
  for (Loop *S : N.L->getLoopsInPreorder())
    if (S->isInnermost())
      Inner.push_back(carriedMemory(*S, FAM, F, SE));
  MemDep.push_back(nestCarriedMemory(Inner));
  ExitMem.push_back(exitMemory(*N.L, FAM.getResult<AAManager>(F)));
  Plans.push_back(std::move(P));
}

StringRef decan::nestCarriedMemory(ArrayRef<StringRef> Inner) {
  StringRef Res = "";
  for (StringRef S : Inner) {
    if (S == "other")
      return S;
    if (!S.empty())
      Res = S;
  }
  return Res;
}
