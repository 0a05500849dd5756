//===- IROutline.cpp - decan: outline innermost loops per variant ---------===//
//
// Part of decan. See IROutline.h for the shape of the transformation.
//
// Order of work in a function (analyses stay valid until the last step):
//  1. find the innermost loops (LoopInfo) and innermost irreducible cycles
//     (CycleInfo), number them by header position (docs/design.md);
//  2. decide per loop: selected, or skipped with a reason;
//  3. put selected loops into simplified + LCSSA form, record their
//     live-ins, live-outs (exit-block PHIs) and an affine induction variable;
//  4. build the outlined REF copy and a clone per variant asked
//     (-decan-build-variants, by default what `decan run` rotates) that
//     machine code could make usable (IRVariantCopies.h);
//  5. insert the dispatch stubs (this invalidates LoopInfo & co), built in
//     IRStub.cpp.
// With -decan-nests the 2-level nests (IRNests.h) go through steps 2-5 with
// the innermost loops, their copies built before any stub.
//
//===----------------------------------------------------------------------===//

#include "IROutline.h"
#include "IRIterationCap.h"
#include "IRLoopIdentity.h"
#include "IRLoopTable.h"
#include "IRNests.h"
#include "IROutlinePlan.h"
#include "IRSelection.h"
#include "IRVariantCopies.h"
#include "decan/abi.h"
#include "decan/abi_names.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/bit.h"
#include "llvm/Analysis/AliasAnalysis.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/BlockFrequencyInfo.h"
#include "llvm/Analysis/LoopAccessAnalysis.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Analysis/ProfileSummaryInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/CycleInfo.h"
#include "llvm/IR/DIBuilder.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/LoopSimplify.h"
#include "llvm/Transforms/Utils/LoopUtils.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

using namespace llvm;
using namespace decan;

#define DEBUG_TYPE "decan"

namespace {

constexpr unsigned NumVariants = DECAN_NUM_VARIANTS;
/// Beyond this many live values the call itself would dominate the timing.
constexpr unsigned MaxLiveValues = 64;

/// An innermost loop (or irreducible innermost cycle) of the function.
struct Candidate {
  BasicBlock *Header;
  Loop *L; ///< null for an irreducible cycle
  bool Irreducible = false;
  bool NestedIrreducible = false;
  DebugLoc Loc;
  LoopRecord Rec;
};

} // namespace

/// `lfence; rdtsc` (start) and `rdtscp; lfence` (end): the loads before the
/// start probe and the loop before the end probe are complete when the
/// counter is read; inline asm with a memory clobber keeps codegen from
/// moving memory operations across either probe.
InlineAsm *decan::probeAsm(LLVMContext &Ctx, bool End) {
  FunctionType *Ty = FunctionType::get(Type::getInt64Ty(Ctx), false);
  if (!End)
    return InlineAsm::get(
        Ty, "lfence\n\trdtsc\n\tshlq $$32, %rdx\n\torq %rdx, %rax",
        "={ax},~{dx},~{memory},~{dirflag},~{fpsr},~{flags}",
        /*hasSideEffects=*/true);
  return InlineAsm::get(
      Ty, EndProbeAsm,
      "={ax},~{dx},~{cx},~{memory},~{dirflag},~{fpsr},~{flags}",
      /*hasSideEffects=*/true);
}

/// Gives the outlined function its own DISubprogram (a function may not use
/// another's scopes) and drops variable records, which describe \p F.
static void fixDebugInfo(Function &F, Function &NF) {
  for (Instruction &I : instructions(NF))
    I.dropDbgRecords();
  DISubprogram *OldSP = F.getSubprogram();
  if (!OldSP) {
    for (Instruction &I : instructions(NF))
      I.setDebugLoc(DebugLoc());
    return;
  }
  LLVMContext &Ctx = F.getContext();
  DIBuilder DIB(*F.getParent(), /*AllowUnresolved=*/false, OldSP->getUnit());
  DISubroutineType *SPType =
      DIB.createSubroutineType(DIB.getOrCreateTypeArray({}));
  DISubprogram *NewSP = DIB.createFunction(
      OldSP->getUnit(), NF.getName(), NF.getName(), OldSP->getFile(),
      OldSP->getLine(), SPType, OldSP->getLine(), DINode::FlagArtificial,
      DISubprogram::SPFlagDefinition | DISubprogram::SPFlagOptimized |
          DISubprogram::SPFlagLocalToUnit);
  NF.setSubprogram(NewSP);
  DenseMap<const MDNode *, MDNode *> Cache;
  for (Instruction &I : instructions(NF)) {
    if (const DebugLoc &DL = I.getDebugLoc())
      I.setDebugLoc(
          DebugLoc::replaceInlinedAtSubprogram(DL, *NewSP, Ctx, Cache));
    updateLoopMetadataDebugLocations(I, [&](Metadata *MD) -> Metadata * {
      if (auto *Loc = dyn_cast_or_null<DILocation>(MD))
        return DebugLoc::replaceInlinedAtSubprogram(Loc, *NewSP, Ctx, Cache);
      return MD;
    });
  }
  DIB.finalizeSubprogram(NewSP);
}

/// Function attributes the outlined copy inherits from \p F: target and
/// code-generation settings, so its loop compiles like the original.
AttributeList decan::outlinedAttrs(const Function &F) {
  LLVMContext &Ctx = F.getContext();
  AttrBuilder AB(Ctx);
  for (Attribute A : F.getAttributes().getFnAttrs()) {
    if (A.isStringAttribute()) {
      if (!A.getKindAsString().starts_with("decan-"))
        AB.addAttribute(A);
      continue;
    }
    switch (A.getKindAsEnum()) {
    case Attribute::UWTable:
    case Attribute::NoRedZone:
    case Attribute::NoImplicitFloat:
    case Attribute::OptimizeForSize:
    case Attribute::MinSize:
    case Attribute::StackProtect:
    case Attribute::StackProtectReq:
    case Attribute::StackProtectStrong:
    case Attribute::VScaleRange:
    case Attribute::NoCfCheck:
      AB.addAttribute(A);
      break;
    default:
      break;
    }
  }
  AB.addAttribute(Attribute::NoInline);
  AB.addAttribute(Attribute::NoUnwind);
  return AttributeList::get(Ctx, AttributeList::FunctionIndex, AB);
}

/// Step 4: the REF copy. Signature (docs/design.md): live-ins, one pointer
/// per live-out (then one for the exit index when the loop has several
/// exits), cycles, trips.
static Function *buildOutlined(Function &F, OutlinePlan &P) {
  Module &M = *F.getParent();
  LLVMContext &Ctx = M.getContext();
  Type *PtrTy = PointerType::getUnqual(Ctx);
  Type *I64 = Type::getInt64Ty(Ctx);

  SmallVector<Type *, 16> Params;
  for (Value *V : P.LiveIns)
    Params.push_back(V->getType());
  unsigned OutBase = Params.size();
  Params.append(P.LiveOuts.size() + P.multiExit(), PtrTy);
  Params.push_back(PtrTy); // cycles
  Params.push_back(PtrTy); // trips
  auto *FTy = FunctionType::get(Type::getVoidTy(Ctx), Params, false);
  Function *NF = Function::Create(FTy, GlobalValue::InternalLinkage,
                                  P.Rec.symbol("REF"), M);
  NF->setAttributes(outlinedAttrs(F));
  NF->addFnAttr("decan-variant", "REF");
  NF->addFnAttr("decan-loop", P.Rec.id());
  if (P.Rec.Nest)
    NF->addFnAttr(NestAttr);
  NF->setDSOLocal(true);
  NF->setComdat(F.getComdat());

  ValueToValueMapTy VMap;
  // Source names of the live-ins where debug info gives them (-g): the
  // machine pass names GROUPING's groups by the pointer they go through.
  std::string ArgNames;
  for (auto [I, V] : enumerate(P.LiveIns)) {
    NF->getArg(I)->setName(V->getName());
    VMap[V] = NF->getArg(I);
    ArgNames += (I ? "," : "") + sourceName(V);
  }
  if (ArgNames.find_first_not_of(',') != std::string::npos)
    NF->addFnAttr("decan-arg-names", ArgNames);
  for (unsigned I = 0; I < P.LiveOuts.size(); ++I)
    NF->getArg(OutBase + I)->setName(P.LiveOuts[I]->getName() + ".out");
  if (P.multiExit())
    NF->getArg(OutBase + P.LiveOuts.size())->setName("exit.out");
  Argument *CyclesArg = NF->getArg(NF->arg_size() - 2);
  Argument *TripsArg = NF->getArg(NF->arg_size() - 1);
  CyclesArg->setName("cycles");
  TripsArg->setName("trips");

  BasicBlock *Entry = BasicBlock::Create(Ctx, "decan.entry", NF);
  VMap[P.Preheader] = Entry;
  SmallVector<BasicBlock *, 8> NewBlocks;
  for (BasicBlock *BB : P.Blocks) {
    BasicBlock *NB = CloneBasicBlock(BB, VMap, "", NF);
    VMap[BB] = NB;
    NewBlocks.push_back(NB);
  }
  SmallVector<BasicBlock *, 4> NewExits;
  for (BasicBlock *E : P.Exits) {
    BasicBlock *NE = BasicBlock::Create(Ctx, E->getName() + ".decan", NF);
    VMap[E] = NE;
    NewExits.push_back(NE);
  }
  for (BasicBlock *NB : NewBlocks)
    for (Instruction &I : *NB)
      RemapInstruction(&I, VMap,
                       RF_NoModuleLevelChanges | RF_IgnoreMissingLocals);
  auto Mapped = [&](Value *V) -> Value * {
    auto It = VMap.find(V);
    return It == VMap.end() ? V : static_cast<Value *>(It->second);
  };

  IRBuilder<> B(Entry);
  Value *T0 = B.CreateCall(probeAsm(Ctx, false), {}, "decan.t0");
  B.CreateBr(cast<BasicBlock>(VMap[P.Header]));

  Value *IVStart =
      P.IV ? Mapped(P.IV->getIncomingValueForBlock(P.Preheader)) : nullptr;
  for (auto [K, E] : enumerate(P.Exits)) {
    BasicBlock *NE = NewExits[K];
    B.SetInsertPoint(NE);
    SmallVector<std::pair<unsigned, PHINode *>, 8> Outs;
    for (auto [J, PN] : enumerate(P.LiveOuts)) {
      if (PN->getParent() != E)
        continue;
      PHINode *NP =
          B.CreatePHI(PN->getType(), PN->getNumIncomingValues(), PN->getName());
      for (unsigned In = 0; In < PN->getNumIncomingValues(); ++In)
        NP->addIncoming(Mapped(PN->getIncomingValue(In)),
                        cast<BasicBlock>(VMap[PN->getIncomingBlock(In)]));
      Outs.push_back({(unsigned)J, NP});
    }
    // Per exit edge: the IV value seen there and how many header visits
    // it lacks (1 before the increment, 0 after).
    PHINode *IVExit = nullptr, *Adjust = nullptr;
    if (P.IV) {
      IVExit = B.CreatePHI(P.IV->getType(), 2, "decan.iv.exit");
      Adjust = B.CreatePHI(I64, 2, "decan.iv.adjust");
      for (BasicBlock *Pred : predecessors(E)) {
        bool After = P.ExitsAfterIncrement.count(Pred);
        auto *NewPred = cast<BasicBlock>(VMap[Pred]);
        IVExit->addIncoming(VMap[After ? P.IVNext : P.IV], NewPred);
        Adjust->addIncoming(ConstantInt::get(I64, After ? 0 : 1), NewPred);
      }
    }
    Value *T1 = B.CreateCall(probeAsm(Ctx, true), {}, "decan.t1");
    B.CreateStore(B.CreateSub(T1, T0, "decan.cycles"), CyclesArg);

    // trips = (iv_exit - start) / step + adjust: in iteration k (from 0)
    // the header PHI holds start + k*step and the increment start +
    // (k+1)*step, whichever exit the loop takes.
    Value *Trips = ConstantInt::get(I64, 0);
    if (IVExit) {
      Value *X = IVExit, *S = IVStart;
      if (X->getType()->isPointerTy()) {
        X = B.CreatePtrToInt(X, I64);
        S = B.CreatePtrToInt(S, I64);
      }
      auto *IntTy = cast<IntegerType>(X->getType());
      APInt Step = P.Step.sextOrTrunc(IntTy->getBitWidth());
      Value *Diff = Step.isNegative() ? B.CreateSub(S, X) : B.CreateSub(X, S);
      APInt Abs = Step.abs();
      Value *Iters = Abs.isOne() ? Diff
                     : Abs.isPowerOf2()
                         ? B.CreateLShr(Diff, Abs.logBase2())
                         : B.CreateUDiv(Diff, ConstantInt::get(IntTy, Abs));
      Trips =
          B.CreateAdd(B.CreateZExtOrTrunc(Iters, I64), Adjust, "decan.trips");
    }
    B.CreateStore(Trips, TripsArg);
    for (auto [J, NP] : Outs)
      B.CreateStore(NP, NF->getArg(OutBase + J));
    if (P.multiExit())
      B.CreateStore(B.getInt32(K), NF->getArg(OutBase + P.LiveOuts.size()));
    B.CreateRetVoid();
  }
  fixDebugInfo(F, *NF);
  return NF;
}

/// Steps 1-2: the innermost loops of \p F in header order, each with its
/// record (and skip reason, if any). \p IsHot: whether a loop is hot by the
/// PGO profile, or null when -decan-pgo-hot is off.
static SmallVector<Candidate, 8>
findCandidates(Function &F, LoopInfo &LI, const LoopFilter &Filter,
               function_ref<bool(const Loop &)> IsHot) {
  DenseMap<const BasicBlock *, unsigned> Pos;
  for (BasicBlock &BB : F)
    Pos[&BB] = Pos.size();

  SmallVector<Candidate, 8> Cands;
  CycleInfo CI;
  CI.compute(F);
  for (Loop *L : LI.getLoopsInPreorder()) {
    if (!L->isInnermost())
      continue;
    Candidate C{L->getHeader(), L};
    const Cycle *Own = CI.getCycle(L->getHeader());
    for (BasicBlock *BB : L->blocks())
      if (CI.getCycle(BB) != Own)
        C.NestedIrreducible = true;
    C.Loc = loopStartLoc(*L);
    Cands.push_back(C);
  }
  // Irreducible innermost cycles are no loops for LoopInfo; list them too.
  SmallVector<const Cycle *, 8> Work(CI.toplevel_cycles());
  while (!Work.empty()) {
    const Cycle *Cy = Work.pop_back_val();
    Work.append(Cy->children().begin(), Cy->children().end());
    if (Cy->isReducible() || !Cy->children().empty())
      continue;
    BasicBlock *Header = nullptr;
    for (BasicBlock *E : Cy->entries())
      if (!Header || Pos[E] < Pos[Header])
        Header = E;
    Candidate C{Header, nullptr};
    C.Irreducible = true;
    for (Instruction &I : *Header)
      if (I.getDebugLoc()) {
        C.Loc = I.getDebugLoc();
        break;
      }
    Cands.push_back(C);
  }
  llvm::sort(Cands, [&](const Candidate &A, const Candidate &B) {
    return Pos[A.Header] < Pos[B.Header];
  });
  SmallVector<bool, 8> Hot = Filter.selectHotLoops(
      F, to_vector(map_range(Cands, [](const Candidate &C) { return C.Loc; })));
  for (auto [Index, C] : enumerate(Cands)) {
    LoopRecord &R = C.Rec;
    R.Function = F.getName().str();
    R.Index = Index;
    setRecordLocation(R, C.Loc);
    R.Source = loopSourceIdentity(C.L, C.Loc);
    if (F.hasOptNone())
      R.SkipReason = OptNoneSkipReason;
    else if (C.Irreducible)
      R.SkipReason = "irreducible control flow";
    else if (C.NestedIrreducible)
      R.SkipReason = "irreducible control flow in the loop";
    else if (Filter.hasLineRanges() && R.Line == 0)
      R.SkipReason = "not selected: no line information for -decan-lines "
                     "(compile with -gline-tables-only or -g)";
    else if (!Filter.selects(F, R.File, R.Line))
      R.SkipReason = "not selected (-decan-functions/-decan-lines)";
    else if (!Hot[Index])
      R.SkipReason = "cold: not among the hot loops of -decan-loops (decan "
                     "flags --hot)";
    else if (IsHot && C.L && !IsHot(*C.L))
      R.SkipReason = "cold by the PGO profile: its header block is not hot "
                     "(-decan-pgo-hot)";
    else if (std::optional<std::string> Why = bodySkipReason(*C.L))
      R.SkipReason = *Why;
  }
  return Cands;
}

/// Step 3: record what outlining needs of a loop already put into simplified
/// and LCSSA form. Returns a skip reason when the loop is not in that form.
std::optional<std::string> decan::planLoop(Function &F, Loop *L,
                                           DominatorTree &DT, LoopInfo &LI,
                                           ScalarEvolution &SE,
                                           OutlinePlan &P) {
  if (!L->getLoopPreheader())
    return std::string("no preheader");
  if (!L->hasDedicatedExits())
    return std::string("exit blocks shared with other code");
  if (!L->isLCSSAForm(DT))
    return std::string("not in LCSSA form");

  P.L = L;
  P.Preheader = L->getLoopPreheader();
  P.Header = L->getHeader();
  for (BasicBlock &BB : F)
    if (L->contains(&BB))
      P.Blocks.push_back(&BB);
  SmallPtrSet<BasicBlock *, 4> ExitSet;
  for (BasicBlock *BB : P.Blocks)
    for (BasicBlock *Succ : successors(BB))
      if (!L->contains(Succ))
        ExitSet.insert(Succ);
  if (ExitSet.empty())
    return std::string("loop has no exit");
  for (BasicBlock &BB : F)
    if (ExitSet.count(&BB))
      P.Exits.push_back(&BB);

  SetVector<Value *> LiveIns;
  auto Consider = [&](Value *V) {
    if (auto *I = dyn_cast<Instruction>(V)) {
      if (!L->contains(I))
        LiveIns.insert(V);
    } else if (isa<Argument>(V)) {
      LiveIns.insert(V);
    }
  };
  for (BasicBlock *BB : P.Blocks)
    for (Instruction &I : *BB)
      for (Value *Op : I.operands())
        Consider(Op);
  for (BasicBlock *E : P.Exits)
    for (PHINode &PN : E->phis()) {
      P.LiveOuts.push_back(&PN);
      for (Value *In : PN.incoming_values())
        Consider(In);
    }
  P.LiveIns.assign(LiveIns.begin(), LiveIns.end());
  unsigned Live = P.LiveIns.size() + P.LiveOuts.size();
  if (Live > MaxLiveValues)
    return "too many live values (" + std::to_string(Live) + ")";

  // An affine header PHI gives the trip count after the loop; prefer an
  // integer one (a pointer one works too, its step is in bytes).
  for (PHINode &PN : P.Header->phis()) {
    if (!SE.isSCEVable(PN.getType()))
      continue;
    auto *AR = dyn_cast<SCEVAddRecExpr>(SE.getSCEV(&PN));
    if (!AR || AR->getLoop() != L || !AR->isAffine())
      continue;
    auto *Step = dyn_cast<SCEVConstant>(AR->getStepRecurrence(SE));
    if (!Step || Step->getAPInt().isZero())
      continue;
    if (P.IV &&
        !(P.IV->getType()->isPointerTy() && PN.getType()->isIntegerTy()))
      continue;
    P.IV = &PN;
    P.Step = Step->getAPInt();
  }
  if (P.IV) {
    BasicBlock *Latch = L->getLoopLatch();
    auto *Next = dyn_cast<Instruction>(P.IV->getIncomingValueForBlock(Latch));
    auto *AR = cast<SCEVAddRecExpr>(SE.getSCEV(P.IV));
    if (Next && L->contains(Next) &&
        SE.getSCEV(Next) == AR->getPostIncExpr(SE)) {
      P.IVNext = Next;
      for (BasicBlock *BB : P.Blocks)
        if (L->isLoopExiting(BB) && DT.dominates(Next, BB->getTerminator()))
          P.ExitsAfterIncrement.insert(BB);
    }
  }
  return std::nullopt;
}

static bool processFunction(Function &F, FunctionAnalysisManager &FAM,
                            const LoopFilter &Filter, ProfileSummaryInfo *PSI,
                            LoopTableBuilder &Table) {
  auto &LI = FAM.getResult<LoopAnalysis>(F);
  auto &DT = FAM.getResult<DominatorTreeAnalysis>(F);
  auto &SE = FAM.getResult<ScalarEvolutionAnalysis>(F);
  auto &AC = FAM.getResult<AssumptionAnalysis>(F);
  auto &ORE = FAM.getResult<OptimizationRemarkEmitterAnalysis>(F);
  auto &AA = FAM.getResult<AAManager>(F);

  BlockFrequencyInfo *BFI =
      PSI ? &FAM.getResult<BlockFrequencyAnalysis>(F) : nullptr;
  // Hot by the profile: the header's count in source iterations (a loop
  // vectorised by 8 runs its header an eighth as often) reaches the
  // summary's hot threshold, within 10%: the remainder of an unrolled or
  // vectorised loop keeps some of its counts.
  auto IsHot = [&](const Loop &L) {
    std::optional<uint64_t> N = BFI->getBlockProfileCount(L.getHeader());
    uint64_t Step = std::max(1u, loopIterationStep(L, SE));
    return N && PSI->isHotCount(*N * Step + *N * Step / 10);
  };
  SmallVector<Candidate, 8> Cands = findCandidates(
      F, LI, Filter, PSI ? function_ref<bool(const Loop &)>(IsHot) : nullptr);
  if (Cands.empty())
    return false;
  for (Candidate &C : Cands)
    if (C.L)
      C.Rec.IterationStep = loopIterationStep(*C.L, SE);
  SmallVector<NestCandidate, 4> Nests;
  if (nestsRequested())
    Nests = findNests(F, LI, SE, [&](const Loop &L) {
      return any_of(Cands, [&](const Candidate &C) {
        return C.L == &L && C.Rec.SkipReason.empty();
      });
    });
  // Shape every selected loop before recording any: LCSSA for one loop can
  // rewrite uses inside another (a value of loop A used in loop B).
  for (Candidate &C : Cands)
    if (C.Rec.SkipReason.empty())
      simplifyLoop(C.L, &DT, &LI, &SE, &AC, nullptr, /*PreserveLCSSA=*/false);
  for (NestCandidate &N : Nests)
    if (N.Rec.SkipReason.empty())
      simplifyLoop(N.L, &DT, &LI, &SE, &AC, nullptr, /*PreserveLCSSA=*/false);
  for (Candidate &C : Cands)
    if (C.Rec.SkipReason.empty())
      formLCSSA(*C.L, DT, &LI, &SE);
  for (NestCandidate &N : Nests)
    if (N.Rec.SkipReason.empty())
      formLCSSARecursively(*N.L, DT, &LI, &SE);

  SmallVector<OutlinePlan, 8> Plans;
  SmallVector<StringRef, 8> MemDep;
  SmallVector<ExitMemory, 8> ExitMem;
  for (Candidate &C : Cands) {
    if (C.Rec.SkipReason.empty()) {
      OutlinePlan P;
      if (std::optional<std::string> Why = planLoop(F, C.L, DT, LI, SE, P)) {
        C.Rec.SkipReason = *Why;
      } else {
        // What -decan-build-variants asks; NO_CALL only for loops that call
        // something.
        C.Rec.VariantMask = Filter.variantMask();
        if (!loopCalls(*C.L))
          C.Rec.VariantMask &= ~(1u << DECAN_NO_CALL);
        P.Rec = C.Rec;
        MemDep.push_back(carriedMemory(*C.L, FAM, F, SE));
        ExitMem.push_back(exitMemory(*C.L, AA));
        Plans.push_back(std::move(P));
      }
    }
    if (!C.Rec.SkipReason.empty()) {
      Table.addLoop(C.Rec, F.getComdat());
      ORE.emit([&] {
        return OptimizationRemarkMissed(DEBUG_TYPE, "LoopSkipped", C.Loc,
                                        C.Header)
               << "loop " << ore::NV("Loop", C.Rec.id())
               << " not instrumented: " << ore::NV("Reason", C.Rec.SkipReason);
      });
    }
  }

  for (NestCandidate &N : Nests)
    planNest(F, FAM, Filter, Nests, N, Plans, MemDep, ExitMem, Table, ORE);

  // Build every copy before any stub changes the function's CFG (a nest's
  // copies hold its inner loops without their stubs).
  SmallVector<SmallVector<Function *, NumVariants>, 8> Copies;
  for (OutlinePlan &P : Plans) {
    Function *Ref = buildOutlined(F, P);
    SmallVector<Function *, NumVariants> Fns = buildVariantCopies(
        F, P, *Ref, MemDep[Copies.size()], ExitMem[Copies.size()]);
    Copies.push_back(Fns);
    ORE.emit([&] {
      return OptimizationRemark(DEBUG_TYPE, "LoopOutlined", loopStartLoc(*P.L),
                                P.Header)
             << "loop " << ore::NV("Loop", P.Rec.id()) << " outlined into "
             << ore::NV("Variants", (unsigned)popcount(P.Rec.VariantMask))
             << " variants (" << ore::NV("LiveIns", (unsigned)P.LiveIns.size())
             << " live-ins, "
             << ore::NV("LiveOuts", (unsigned)P.LiveOuts.size())
             << " live-outs, " << ore::NV("Exits", (unsigned)P.Exits.size())
             << " exits, trip "
             << (P.IV ? "count from an induction variable" : "count unknown")
             << ")";
    });
  }
  for (auto [P, Fns, EM] : zip(Plans, Copies, ExitMem)) {
    Constant *Desc = Table.addLoop(P.Rec, F.getComdat());
    // An exit that reads memory: what a variant deletes may be what it
    // waits for, so every variant copy counts its iterations down (a
    // nest's: every loop's, IRNests.h).
    if (EM.Reads)
      for (unsigned V = 1; V < NumVariants; ++V)
        if (Fns[V] != Fns[0])
          addIterationCap(*Fns[V], Desc, Table.descType(),
                          P.IV != nullptr && !P.Rec.Nest, P.Rec.Nest);
    insertStub(F, P, Desc, Table.descType(), Fns);
  }
  FAM.invalidate(F, PreservedAnalyses::none());
  return true;
}

PreservedAnalyses OutlinePass::run(Module &M, ModuleAnalysisManager &MAM) {
  if (isDecanDisabled())
    return PreservedAnalyses::all();
  const Triple &TT = M.getTargetTriple();
  if (!TT.isX86() || !TT.isArch64Bit())
    return PreservedAnalyses::all();
  // Once per module, even if a pipeline runs the pass twice.
  if (M.getNamedMetadata("decan.outlined"))
    return PreservedAnalyses::all();
  Expected<LoopFilter> Filter = LoopFilter::fromOptions();
  if (!Filter) {
    M.getContext().emitError(toString(Filter.takeError()));
    return PreservedAnalyses::all();
  }

  auto &FAM = MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
  SmallVector<Function *, 32> Worklist;
  for (Function &F : M)
    if (!F.isDeclaration() && !F.hasAvailableExternallyLinkage() &&
        !F.hasFnAttribute("decan-variant"))
      Worklist.push_back(&F);

  // -decan-pgo-hot reads the profile summary; without one every loop is
  // instrumented, and the user is told.
  ProfileSummaryInfo *PSI = nullptr;
  if (Filter->wantsProfileHotness()) {
    PSI = &MAM.getResult<ProfileSummaryAnalysis>(M);
    if (!PSI->hasProfileSummary()) {
      M.getContext().diagnose(DiagnosticInfoGeneric(
          "decan: -decan-pgo-hot without a PGO profile (-fprofile-instr-use, "
          "-fprofile-use or -fprofile-sample-use): every loop is "
          "instrumented",
          DS_Warning));
      PSI = nullptr;
    }
  }
  LoopTableBuilder Table(M);
  bool Changed = false;
  for (Function *F : Worklist)
    Changed |= processFunction(*F, FAM, *Filter, PSI, Table);
  // Once per translation unit: an -O0 build (or a CMake one without a
  // build type) would otherwise measure nothing without a word.
  if (unsigned N = Table.optNoneLoops())
    M.getContext().diagnose(
        DiagnosticInfoGeneric("decan: built at -O0: " + Twine(N) +
                                  (N == 1 ? " loop is" : " loops are") +
                                  " not instrumented; build with -O2 (CMake: "
                                  "-DCMAKE_BUILD_TYPE=Release)",
                              DS_Warning));
  if (!Changed)
    return PreservedAnalyses::all();
  Table.finalize();
  M.getOrInsertNamedMetadata("decan.outlined");
  return PreservedAnalyses::none();
}
