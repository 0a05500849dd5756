//===- IRTuneExtract.cpp - decan: a tuned loop's copies, called in turn ---===//
//
// Part of decan. See IRTune.h. After simplification, each loop -decan-tune
// names (its parent loop for a nest candidate) is extracted into a function
// and copied per candidate; the call left where the loop was becomes
//
//   %n = atomicrmw add @F.decan.tune.next<k>, 1 ; the calls of this loop
//   switch %n urem K: F.decan.tune.default(ins...), ...vf8-il2(ins...)
//
// so the candidates share the loop's calls, not the function's. After the
// vectoriser, TuneVerifyPass refuses a clone that reassociates what the
// default keeps in order.
//
//===----------------------------------------------------------------------===//

#include "IRLoopIdentity.h"
#include "IRTune.h"
#include "IRTuneCandidates.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Analysis/CaptureTracking.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/CodeExtractor.h"
#include "llvm/Transforms/Utils/LoopSimplify.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

#include <algorithm>

using namespace llvm;
using namespace decan;

namespace {

/// The -decan-tune entries \p L's identity matches.
SmallVector<std::string, 2> tunedPositionsOf(const Loop &L) {
  SmallVector<std::string, 2> Out;
  if (DebugLoc Loc = loopStartLoc(L))
    for (const std::string &P : tunePositions())
      if (positionMatches(P, *Loc.get()))
        Out.push_back(P);
  return Out;
}

/// The -decan-tune entries the innermost loops of \p R (a loop or a nest)
/// match.
SmallVector<std::string, 4> tunedPositionsIn(const Loop &R) {
  SmallVector<std::string, 4> Out;
  for (const Loop *L : R.getLoopsInPreorder())
    if (L->isInnermost())
      for (std::string &P : tunedPositionsOf(*L))
        if (!is_contained(Out, P))
          Out.push_back(std::move(P));
  return Out;
}

/// The first loop of \p F still to extract: a tuned innermost loop, or its
/// parent when one of its candidates transforms the nest (-decan-tune-kinds
/// asks for the nest kind there) and that parent is itself inside a loop.
/// An outermost parent runs once per call of F, often once per run (a
/// benchmark's kernel): its copies would not share calls, so the loop is
/// tuned alone, without the candidates that need its parent. Regions that
/// could not be extracted (by header) are left out.
Loop *nextRegion(LoopInfo &LI, const SmallPtrSetImpl<BasicBlock *> &Failed) {
  for (Loop *L : LI.getLoopsInPreorder()) {
    if (!L->isInnermost())
      continue;
    SmallVector<std::string, 2> Positions = tunedPositionsOf(*L);
    if (Positions.empty())
      continue;
    bool Nest = any_of(candidatesFor(Positions, tuneFastMath()),
                       [](const TuneCandidate *C) { return C->Nest; });
    Loop *P = L->getParentLoop();
    Loop *R = Nest && P && P->getParentLoop() ? P : L;
    if (!Failed.count(R->getHeader()))
      return R;
  }
  return nullptr;
}

/// Whether \p G reaches memory only through its own instructions' pointers:
/// no call that reads or writes memory.
bool noMemoryCalls(const Function &G) {
  for (const BasicBlock &BB : G)
    for (const Instruction &I : BB)
      if (const auto *CB = dyn_cast<CallBase>(&I);
          CB && CB->mayReadOrWriteMemory())
        return false;
  return true;
}

/// Whether \p G names \p GV itself (not through a parameter).
bool namesGlobal(const Function &G, const GlobalVariable &GV) {
  for (const BasicBlock &BB : G)
    for (const Instruction &I : BB)
      for (const Value *Op : I.operands())
        if (isa<Constant>(Op) && getUnderlyingObject(Op) == &GV)
          return true;
  return false;
}

/// A parameter of the extracted function that stands for a noalias
/// argument of its caller keeps the attribute when no other input derives
/// from that argument and the caller does not store it (the region runs
/// inside the caller's call: the caller's guarantee holds), so the copies
/// vectorise (and jam) as the loop would in place. So does one that points
/// into a global variable (a row of a global array) when no other input
/// derives from it, \p G does not name the global itself and calls nothing
/// that touches memory: distinct globals do not overlap.
/// \p Kept: the caller's noalias arguments it did not capture before the
/// extraction (the call of G passes them on).
void keepNoAlias(Function &G, ArrayRef<Value *> Inputs,
                 const SmallPtrSetImpl<Argument *> &Kept) {
  bool Contained = noMemoryCalls(G);
  for (auto [I, In] : enumerate(Inputs)) {
    if (I >= G.arg_size() || !In->getType()->isPointerTy())
      continue;
    const Value *Object = getUnderlyingObject(In);
    auto *A = dyn_cast<Argument>(In);
    auto *GV = dyn_cast<GlobalVariable>(Object);
    bool Candidate =
        (A && Kept.count(A)) || (GV && Contained && !namesGlobal(G, *GV));
    if (!Candidate)
      continue;
    if (none_of(enumerate(Inputs), [&](auto Other) {
          return Other.index() != I &&
                 getUnderlyingObject(Other.value()) == Object;
        }))
      G.getArg(I)->addAttr(Attribute::NoAlias);
  }
}

/// Whether \p G's loops at the tuned positions (all its innermost loops,
/// for a nest) could have FP arithmetic reordered.
bool regionMayReorderFP(Function &G) {
  DominatorTree DT(G);
  LoopInfo LI(DT);
  return any_of(LI.getLoopsInPreorder(),
                [](Loop *L) { return L->isInnermost() && mayReorderFP(*L); });
}

/// Replaces the call \p CI of the extracted loop with a rotation over
/// \p Clones: the n-th call runs Clones[n mod K].
void rotateCalls(CallInst *CI, ArrayRef<Function *> Clones, Module &M) {
  LLVMContext &Ctx = M.getContext();
  Function *F = CI->getFunction();
  auto *Next = new GlobalVariable(M, Type::getInt32Ty(Ctx), false,
                                  GlobalValue::InternalLinkage,
                                  ConstantInt::get(Type::getInt32Ty(Ctx), 0),
                                  F->getName() + ".decan.tune.next");
  Next->setComdat(F->getComdat());
  BasicBlock *Head = CI->getParent();
  BasicBlock *Join = Head->splitBasicBlock(CI, "decan.tune.join");
  Head->getTerminator()->eraseFromParent();
  IRBuilder<> B(Head);
  B.SetCurrentDebugLocation(CI->getDebugLoc());
  Value *N = B.CreateAtomicRMW(AtomicRMWInst::Add, Next, B.getInt32(1),
                               MaybeAlign(4), AtomicOrdering::Monotonic);
  Value *Pick = B.CreateURem(N, B.getInt32(Clones.size()));
  SmallVector<Value *, 8> Args(CI->args());
  PHINode *Result = CI->getType()->isVoidTy()
                        ? nullptr
                        : PHINode::Create(CI->getType(), Clones.size(),
                                          "decan.tune.ret", Join->begin());
  SmallVector<BasicBlock *, 16> Cases;
  for (Function *Clone : Clones) {
    BasicBlock *BB = BasicBlock::Create(Ctx, Clone->getName(), F, Join);
    IRBuilder<> CB(BB);
    CB.SetCurrentDebugLocation(CI->getDebugLoc());
    CallInst *Call = CB.CreateCall(Clone, Args);
    Call->setAttributes(CI->getAttributes());
    CB.CreateBr(Join);
    if (Result)
      Result->addIncoming(Call, BB);
    Cases.push_back(BB);
  }
  SwitchInst *SI = B.CreateSwitch(Pick, Cases.back(), Cases.size() - 1);
  for (unsigned I = 0; I + 1 < Cases.size(); ++I)
    SI->addCase(B.getInt32(I), Cases[I]);
  if (Result)
    CI->replaceAllUsesWith(Result);
  CI->eraseFromParent();
}

/// Extracts \p R from \p F and rotates its calls over the candidates'
/// copies; false (and a remark) when it cannot be extracted.
bool tuneRegion(Function &F, Loop &R, DominatorTree &DT, Module &M) {
  OptimizationRemarkEmitter ORE(&F);
  DebugLoc Loc = loopStartLoc(R);
  BasicBlock *Header = R.getHeader();
  SmallVector<std::string, 4> Positions = tunedPositionsIn(R);
  // A region that is one loop: no enclosing loop to jam or interchange.
  bool Nested = !R.isInnermost();
  CodeExtractor CE(R.getBlocks(), &DT, /*AggregateArgs=*/false, nullptr,
                   nullptr, nullptr, /*AllowVarArgs=*/false,
                   /*AllowAlloca=*/false, nullptr, "decan.tune.region");
  SmallPtrSet<Argument *, 4> NoAlias;
  for (Argument &A : F.args())
    if (A.hasNoAliasAttr() && !PointerMayBeCaptured(&A, false))
      NoAlias.insert(&A);
  CodeExtractorAnalysisCache CEAC(F);
  SetVector<Value *> Inputs, Outputs;
  Function *G =
      CE.isEligible() ? CE.extractCodeRegion(CEAC, Inputs, Outputs) : nullptr;
  if (!G || !G->hasOneUse() || !isa<CallInst>(G->user_back())) {
    ORE.emit([&] {
      return OptimizationRemarkMissed("decan", "TuneNotExtracted", Loc, Header)
             << "loop not tuned: it cannot be extracted into a function";
    });
    return false;
  }
  keepNoAlias(*G, Inputs.getArrayRef(), NoAlias);
  bool Reorders = !tuneFastMath() && regionMayReorderFP(*G);
  SmallVector<Function *, 16> Clones;
  SmallVector<StringRef, 8> Withheld, Unnested;
  static unsigned Group = 0;
  std::string GroupId = std::to_string(Group++);
  for (const TuneCandidate *CP : candidatesFor(Positions, tuneFastMath())) {
    const TuneCandidate &C = *CP;
    if (!Nested && (C.Jam || C.Interchange)) {
      Unnested.push_back(C.Name);
      continue;
    }
    if (Reorders && C.mayReassociate()) {
      Withheld.push_back(C.Name);
      continue;
    }
    ValueToValueMapTy VMap;
    Function *Clone = CloneFunction(G, VMap);
    Clone->setName(F.getName() + ".decan.tune." + C.Name);
    Clone->setLinkage(GlobalValue::InternalLinkage);
    Clone->setComdat(F.getComdat());
    Clone->addFnAttr(Attribute::NoInline);
    // Its hints go on just before the vectoriser (ApplyLoopHintsPass).
    Clone->addFnAttr("decan-tune-candidate", C.Name);
    Clone->addFnAttr("decan-tune-group", GroupId);
    Clones.push_back(Clone);
  }
  rotateCalls(cast<CallInst>(G->user_back()), Clones, M);
  G->eraseFromParent();
  ORE.emit([&] {
    return OptimizationRemark("decan", "TuneCandidates", Loc, Header)
           << "loop of '" << ore::NV("Function", F.getName())
           << "' compiled as " << ore::NV("Candidates", (unsigned)Clones.size())
           << " tuning candidates, called in turn";
  });
  if (!Unnested.empty())
    ORE.emit([&] {
      return OptimizationRemarkMissed("decan", "TuneCandidatesUnnested", Loc,
                                      Header)
             << "candidates " << ore::NV("Candidates", join(Unnested, ","))
             << " not built: they transform the enclosing loop, which is "
                "outermost (its copies would rotate per call of '"
             << ore::NV("Function", F.getName()) << "')";
    });
  if (!Withheld.empty())
    ORE.emit([&] {
      return OptimizationRemarkMissed("decan", "TuneCandidatesWithheld", Loc,
                                      Header)
             << "candidates " << ore::NV("Candidates", join(Withheld, ","))
             << " not built: they could reorder floating-point arithmetic "
                "(decan tune --allow-fast-math allows it)";
    });
  return true;
}

/// The most in-order FP accumulators one loop of \p F carries per body of
/// the source loop (a vector accumulator counting its lanes, a jammed
/// loop's shared among its jammed bodies): 1 for a scalar reduction, 4 once it
/// is vectorised by 4 or interleaved by 4 (partial sums, added up in another
/// order at the end).
unsigned widestFPRecurrence(Function &F) {
  DominatorTree DT(F);
  LoopInfo LI(DT);
  unsigned Widest = 0;
  for (Loop *L : LI.getLoopsInPreorder()) {
    unsigned Lanes = 0;
    for (PHINode &Phi : L->getHeader()->phis())
      if (carriesInOrderFP(*L, Phi)) {
        auto *VT = dyn_cast<FixedVectorType>(Phi.getType());
        Lanes += VT ? VT->getNumElements() : 1;
      }
    // A jammed loop carries one accumulator per jammed body: each its own
    // reduction, in order.
    Widest = std::max(Widest, Lanes / jammedBodies(*L));
  }
  return Widest;
}

/// A position of this file that names a loop as written (checked at the
/// start of the pipeline) but no loop left before the vectoriser: the loop
/// was fully unrolled, deleted or made a library call. Said, not silent.
void warnGone(Module &M) {
  SmallVector<const DILocation *, 16> Starts = moduleLoopStarts(M);
  for (const std::string &P : tunePositions()) {
    StringRef File = StringRef(P).rsplit(':').first.rsplit(':').first;
    if (File.empty() || !fileMatches(File, M.getSourceFileName()) ||
        any_of(Starts,
               [&](const DILocation *D) { return positionMatches(P, *D); }))
      continue;
    M.getContext().diagnose(DiagnosticInfoGeneric(
        "decan: -decan-tune position '" + P +
            "': the loop is gone before the vectoriser (fully unrolled, "
            "deleted or made a library call): not tuned",
        DS_Warning));
  }
}

} // namespace

PreservedAnalyses decan::TuneCandidatesPass::run(Module &M,
                                                 ModuleAnalysisManager &) {
  if (!tuneGiven())
    return PreservedAnalyses::all();
  SmallVector<Function *, 8> Functions;
  for (Function &F : M)
    // Not extracted from: copies decan made, coroutines (split later) and
    // optnone functions (-O0: no candidates to compare).
    if (!F.isDeclaration() && !F.hasOptNone() && !F.isPresplitCoroutine() &&
        !F.hasFnAttribute("decan-variant") && !F.getName().contains(".decan."))
      Functions.push_back(&F);
  bool Changed = false;
  for (Function *F : Functions) {
    SmallPtrSet<BasicBlock *, 4> Failed;
    while (true) {
      DominatorTree DT(*F);
      LoopInfo LI(DT);
      Loop *R = nextRegion(LI, Failed);
      if (!R)
        break;
      if (!R->getLoopPreheader()) {
        simplifyLoop(R, &DT, &LI, nullptr, nullptr, nullptr, false);
        Changed = true;
      }
      if (tuneRegion(*F, *R, DT, M))
        Changed = true;
      else
        Failed.insert(R->getHeader());
    }
  }
  warnGone(M);
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

PreservedAnalyses decan::TuneVerifyPass::run(Module &M,
                                             ModuleAnalysisManager &) {
  if (tuneFastMath())
    return PreservedAnalyses::all();
  StringMap<Function *> Defaults;
  SmallVector<Function *, 16> Clones;
  for (Function &F : M) {
    Attribute A = F.getFnAttribute("decan-tune-candidate");
    if (!A.isValid() || F.isDeclaration())
      continue;
    StringRef Group = F.getFnAttribute("decan-tune-group").getValueAsString();
    if (A.getValueAsString() == "default")
      Defaults[Group] = &F;
    else
      Clones.push_back(&F);
  }
  bool Changed = false;
  for (Function *C : Clones) {
    Function *D = Defaults.lookup(
        C->getFnAttribute("decan-tune-group").getValueAsString());
    if (!D || widestFPRecurrence(*C) <= widestFPRecurrence(*D))
      continue;
    M.getContext().diagnose(DiagnosticInfoGeneric(
        "decan: tuning candidate '" + C->getName() +
            "' refused: it reassociates floating-point arithmetic that the "
            "default keeps in order (decan tune --allow-fast-math allows it)",
        DS_Warning));
    C->replaceAllUsesWith(D);
    C->eraseFromParent();
    Changed = true;
  }
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}
