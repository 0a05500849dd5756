//===- IRTune.cpp - decan: optimization candidates of hot loops -----------===//
//
// Part of decan. See IRTune.h.
//
//===----------------------------------------------------------------------===//

#include "IRTune.h"
#include "IRTuneCandidates.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Analysis/IVDescriptors.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

using namespace llvm;
using namespace decan;

static cl::list<std::string> DecanTune(
    "decan-tune", cl::CommaSeparated,
    cl::desc("Compile the loops at these source positions once per "
             "optimization candidate, run in turn (decan flags --tune)"),
    cl::value_desc("a.c:10:3,..."));

static cl::list<std::string> DecanLoopHints(
    "decan-loop-hints", cl::CommaSeparated,
    cl::desc("Loop hints of the chosen candidate per source position "
             "(decan flags --apply tune.json)"),
    cl::value_desc("a.c:10:3=vf4,..."));

static cl::opt<bool> DecanTuneFastMath(
    "decan-tune-fast-math",
    cl::desc("Let vectorisation and interleave candidates reorder "
             "floating-point reductions (results may differ in the last "
             "bits; decan tune --allow-fast-math)"),
    cl::init(false));

bool decan::tuneGiven() { return !DecanTune.empty(); }
bool decan::loopHintsGiven() {
  return !DecanLoopHints.empty() || !DecanTune.empty();
}

namespace {

/// "dir/a.c:3:5" matches "a.c:3:5" and "/abs/dir/a.c:3:5", not "xa.c:3:5".
bool positionMatches(StringRef Want, const DILocation &DL) {
  std::string Tail =
      ":" + std::to_string(DL.getLine()) + ":" + std::to_string(DL.getColumn());
  if (!Want.consume_back(Tail))
    return false;
  StringRef File = DL.getFilename();
  auto Suffix = [](StringRef Long, StringRef Short) {
    return Long.ends_with(Short) &&
           (Long.size() == Short.size() ||
            Long[Long.size() - Short.size() - 1] == '/');
  };
  return Suffix(File, Want) || Suffix(Want, File);
}

/// Replaces \p L's hints with \p C's (other loop properties stay).
void setHints(Loop &L, const TuneCandidate &C) {
  LLVMContext &Ctx = L.getHeader()->getContext();
  SmallVector<Metadata *, 8> Ops{nullptr};
  if (MDNode *Old = L.getLoopID())
    for (const MDOperand &Op : drop_begin(Old->operands())) {
      auto *N = dyn_cast<MDNode>(Op);
      auto *S = N && N->getNumOperands() ? dyn_cast<MDString>(N->getOperand(0))
                                         : nullptr;
      if (S && (S->getString().starts_with("llvm.loop.vectorize.") ||
                S->getString().starts_with("llvm.loop.interleave.") ||
                S->getString().starts_with("llvm.loop.unroll.")))
        continue;
      Ops.push_back(Op);
    }
  auto Hint = [&](StringRef Name, Metadata *V) {
    Ops.push_back(MDNode::get(Ctx, {MDString::get(Ctx, Name), V}));
  };
  auto I32 = [&](unsigned V) {
    return ConstantAsMetadata::get(ConstantInt::get(Type::getInt32Ty(Ctx), V));
  };
  if (C.Width) {
    Hint("llvm.loop.vectorize.width", I32(C.Width));
    Hint("llvm.loop.vectorize.enable", ConstantAsMetadata::get(ConstantInt::get(
                                           Type::getInt1Ty(Ctx), C.Width > 1)));
  }
  if (C.Interleave)
    Hint("llvm.loop.interleave.count", I32(C.Interleave));
  if (C.Unroll)
    Hint("llvm.loop.unroll.count", I32(C.Unroll));
  else if (C.Width)
    Ops.push_back(
        MDNode::get(Ctx, {MDString::get(Ctx, "llvm.loop.unroll.disable")}));
  MDNode *ID = MDNode::getDistinct(Ctx, Ops);
  ID->replaceOperandWith(0, ID);
  L.setLoopID(ID);
}

/// Whether vectorising or interleaving \p L would reorder a floating-point
/// reduction that the program computes in order: the loop vectoriser takes
/// explicit hints as a licence to (as `#pragma clang loop
/// vectorize(enable)`), and the candidate would not compute what the loop
/// computes.
bool reordersFPReduction(Loop &L) {
  for (PHINode &Phi : L.getHeader()->phis()) {
    if (!Phi.getType()->isFloatingPointTy())
      continue;
    RecurrenceDescriptor RD;
    if (RecurrenceDescriptor::isReductionPHI(&Phi, &L, RD) &&
        RD.getExactFPMathInst())
      return true;
  }
  return false;
}

/// The loops of \p F (innermost ones) starting at one of \p Positions.
SmallVector<Loop *, 4> matchingLoops(LoopInfo &LI,
                                     ArrayRef<std::string> Positions) {
  SmallVector<Loop *, 4> Out;
  for (Loop *L : LI.getLoopsInPreorder()) {
    if (!L->isInnermost())
      continue;
    DebugLoc Loc = L->getStartLoc();
    if (Loc && any_of(Positions, [&](const std::string &P) {
          return positionMatches(P, *Loc.get());
        }))
      Out.push_back(L);
  }
  return Out;
}

/// The entries of \p Positions that name an innermost loop of \p F.
SmallVector<std::string, 4> positionsIn(Function &F,
                                        ArrayRef<std::string> Positions) {
  DominatorTree DT(F);
  LoopInfo LI(DT);
  SmallVector<std::string, 4> Out;
  for (const std::string &P : Positions)
    if (!matchingLoops(LI, P).empty())
      Out.push_back(P);
  return Out;
}

} // namespace

PreservedAnalyses decan::TuneCandidatesPass::run(Module &M,
                                                 ModuleAnalysisManager &MAM) {
  if (DecanTune.empty())
    return PreservedAnalyses::all();
  SmallVector<std::string, 8> Positions(DecanTune.begin(), DecanTune.end());
  SmallVector<Function *, 8> Targets;
  for (Function &F : M) {
    // Not cloned: varargs (the dispatcher cannot forward them), coroutines
    // (split later by the coroutine passes), naked functions and functions
    // whose blocks' addresses are taken (a computed goto's table would
    // point into the dispatcher).
    if (F.isDeclaration() || F.isVarArg() || F.hasOptNone() ||
        F.isPresplitCoroutine() || F.hasFnAttribute(Attribute::Naked) ||
        F.hasFnAttribute("decan-variant") || F.getName().contains(".decan.") ||
        any_of(F, [](const BasicBlock &BB) { return BB.hasAddressTaken(); }))
      continue;
    if (!positionsIn(F, Positions).empty())
      Targets.push_back(&F);
  }
  LLVMContext &Ctx = M.getContext();
  for (Function *F : Targets) {
    // Every candidate a clone; F dispatches its calls to them in turn.
    SmallVector<Function *, 8> Clones;
    for (const TuneCandidate *CP :
         candidatesFor(positionsIn(*F, Positions), DecanTuneFastMath)) {
      const TuneCandidate &C = *CP;
      ValueToValueMapTy VMap;
      Function *Clone = CloneFunction(F, VMap);
      Clone->setName(F->getName() + ".decan.tune." + C.Name);
      Clone->setLinkage(GlobalValue::InternalLinkage);
      Clone->setVisibility(GlobalValue::DefaultVisibility);
      Clone->setComdat(F->getComdat());
      Clone->removeFnAttr(Attribute::AlwaysInline);
      Clone->addFnAttr(Attribute::NoInline);
      // Its hints go on before the vectoriser (ApplyLoopHintsPass), once
      // SROA made the reductions visible.
      Clone->addFnAttr("decan-tune-candidate", C.Name);
      Clones.push_back(Clone);
    }
    // F's body becomes: n = next++ (mod K); return clone[n](args).
    // deleteBody() makes F a declaration and drops its subprogram: keep
    // both (the dispatcher's calls carry F's line, for the inliner).
    GlobalValue::LinkageTypes Linkage = F->getLinkage();
    DISubprogram *SP = F->getSubprogram();
    F->deleteBody();
    F->setLinkage(Linkage);
    if (SP)
      F->setSubprogram(SP);
    auto *Next = new GlobalVariable(M, Type::getInt32Ty(Ctx), false,
                                    GlobalValue::InternalLinkage,
                                    ConstantInt::get(Type::getInt32Ty(Ctx), 0),
                                    F->getName() + ".decan.tune.next");
    if (F->getComdat())
      Next->setComdat(F->getComdat());
    BasicBlock *Entry = BasicBlock::Create(Ctx, "entry", F);
    IRBuilder<> B(Entry);
    DebugLoc Here;
    if (SP)
      Here = DILocation::get(Ctx, SP->getLine(), 0, SP);
    B.SetCurrentDebugLocation(Here);
    Value *N = B.CreateAtomicRMW(AtomicRMWInst::Add, Next, B.getInt32(1),
                                 MaybeAlign(4), AtomicOrdering::Monotonic);
    Value *Pick = B.CreateURem(N, B.getInt32(Clones.size()));
    BasicBlock *Last = nullptr;
    SmallVector<BasicBlock *, 8> Cases;
    SmallVector<Value *, 8> Args;
    for (Argument &A : F->args())
      Args.push_back(&A);
    for (Function *Clone : Clones) {
      BasicBlock *BB = BasicBlock::Create(Ctx, Clone->getName(), F);
      IRBuilder<> CB(BB);
      CB.SetCurrentDebugLocation(Here);
      CallInst *Call = CB.CreateCall(Clone, Args);
      Call->setAttributes(Clone->getAttributes());
      if (F->getReturnType()->isVoidTy())
        CB.CreateRetVoid();
      else
        CB.CreateRet(Call);
      Cases.push_back(BB);
      Last = BB;
    }
    SwitchInst *SI = B.CreateSwitch(Pick, Last, Cases.size() - 1);
    for (unsigned I = 0; I + 1 < Cases.size(); ++I)
      SI->addCase(B.getInt32(I), Cases[I]);
    // The dispatcher itself is cheap to inline into callers: its calls of
    // the clones stay calls (noinline).
    F->removeFnAttr(Attribute::NoInline);
    F->removeFnAttr(Attribute::OptimizeNone);
    OptimizationRemarkEmitter ORE(F);
    ORE.emit([&] {
      return OptimizationRemark("decan", "TuneCandidates", F)
             << "'" << ore::NV("Function", F->getName()) << "' compiled as "
             << ore::NV("Candidates", (unsigned)Clones.size())
             << " tuning candidates, called in turn";
    });
  }
  return Targets.empty() ? PreservedAnalyses::all() : PreservedAnalyses::none();
}

PreservedAnalyses decan::ApplyLoopHintsPass::run(Function &F,
                                                 FunctionAnalysisManager &AM) {
  static StringMap<const TuneCandidate *> Chosen;
  static bool Parsed = false;
  if (!Parsed) {
    Parsed = true;
    for (StringRef Entry : DecanLoopHints) {
      auto [Pos, Name] = Entry.rsplit('=');
      const TuneCandidate *C = findTuneCandidate(Name);
      if (Pos.empty() || !C) {
        F.getContext().diagnose(DiagnosticInfoGeneric(
            "decan: bad -decan-loop-hints entry '" + Entry +
                "': expected FILE:LINE:COL=CANDIDATE",
            DS_Warning));
        continue;
      }
      Chosen[Pos] = C;
    }
  }
  if (F.isDeclaration())
    return PreservedAnalyses::all();
  // A tuning clone: its candidate at the -decan-tune positions. Else the
  // choices of -decan-loop-hints.
  const TuneCandidate *Clone = nullptr;
  if (Attribute A = F.getFnAttribute("decan-tune-candidate"); A.isValid())
    Clone = findTuneCandidate(A.getValueAsString());
  auto Pick = [&](const DILocation &DL) -> const TuneCandidate * {
    if (Clone)
      return any_of(
                 DecanTune,
                 [&](const std::string &P) { return positionMatches(P, DL); })
                 ? Clone
                 : nullptr;
    for (const auto &E : Chosen)
      if (positionMatches(E.getKey(), DL))
        return E.getValue();
    return nullptr;
  };
  if (!Clone && Chosen.empty())
    return PreservedAnalyses::all();
  LoopInfo &LI = AM.getResult<LoopAnalysis>(F);
  OptimizationRemarkEmitter &ORE =
      AM.getResult<OptimizationRemarkEmitterAnalysis>(F);
  bool Changed = false, Interchange = false;
  SmallVector<JamRequest, 2> Jams;
  for (Loop *L : LI.getLoopsInPreorder()) {
    if (!L->isInnermost())
      continue;
    DebugLoc Loc = L->getStartLoc();
    const TuneCandidate *C = Loc ? Pick(*Loc.get()) : nullptr;
    if (!C || !C->hasHints())
      continue;
    if (C->mayReassociate() && !DecanTuneFastMath &&
        (C->Reciprocal || reordersFPReduction(*L))) {
      ORE.emit([&] {
        return OptimizationRemarkMissed("decan", "LoopHintsNotApplied", Loc,
                                        L->getHeader())
               << "candidate " << ore::NV("Candidate", C->Name)
               << " not applied: it would "
               << (C->Reciprocal ? "round divisions differently"
                                 : "reorder a floating-point reduction")
               << " (decan tune --allow-fast-math allows it)";
      });
      continue;
    }
    if (C->Width || C->Interleave || C->Unroll)
      setHints(*L, *C);
    if (C->Reciprocal)
      allowReciprocals(*L);
    if (setNestHints(*L, *C)) {
      Interchange |= C->Interchange;
      if (C->Jam)
        Jams.push_back({L->getParentLoop()->getHeader(), C->Jam, C});
    }
    Changed = true;
    ORE.emit([&] {
      return OptimizationRemark("decan", "LoopHintsApplied", Loc,
                                L->getHeader())
             << "loop hints of candidate " << ore::NV("Candidate", C->Name)
             << " (decan tune)";
    });
  }
  // Interchange and unroll-and-jam are off in the default pipeline: they
  // run here, on the functions that asked for them.
  if (Interchange || !Jams.empty())
    runNestPasses(F, AM, Interchange, Jams);
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}
