//===- IRTune.cpp - decan: optimization candidates of hot loops -----------===//
//
// Part of decan. See IRTune.h.
//
//===----------------------------------------------------------------------===//

#include "IRTune.h"
#include "IRLoopIdentity.h"
#include "IRTuneCandidates.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/Support/CommandLine.h"

#include <set>
#include <tuple>

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

namespace {

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

} // namespace

bool decan::fileMatches(StringRef Want, StringRef File) {
  auto Suffix = [](StringRef Long, StringRef Short) {
    return Long.ends_with(Short) &&
           (Long.size() == Short.size() ||
            Long[Long.size() - Short.size() - 1] == '/');
  };
  return Suffix(File, Want) || Suffix(Want, File);
}

bool decan::tuneGiven() { return !DecanTune.empty(); }
bool decan::loopHintsGiven() {
  return !DecanLoopHints.empty() || !DecanTune.empty();
}
ArrayRef<std::string> decan::tunePositions() { return DecanTune; }
bool decan::tuneFastMath() { return DecanTuneFastMath; }

bool decan::positionMatches(StringRef Want, const DILocation &DL) {
  std::string Tail =
      ":" + std::to_string(DL.getLine()) + ":" + std::to_string(DL.getColumn());
  if (!Want.consume_back(Tail))
    return false;
  return fileMatches(Want, DL.getFilename());
}

/// An FP operation of \p L that must keep its order.
static bool inOrderFPOp(const Loop &L, const Value *V) {
  const auto *I = dyn_cast<Instruction>(V);
  return I && L.contains(I) && isa<FPMathOperator>(I) &&
         I->getType()->isFPOrFPVectorTy() && !I->hasAllowReassoc();
}

bool decan::carriesInOrderFP(const Loop &L, const PHINode &Phi) {
  if (!Phi.getType()->isFPOrFPVectorTy() || !L.getLoopLatch() ||
      Phi.getParent() != L.getHeader())
    return false;
  // What comes back on the back edge, looking through the loop's selects
  // and phis (a conditional reduction).
  SmallVector<const Value *, 8> Work{
      Phi.getIncomingValueForBlock(L.getLoopLatch())};
  SmallPtrSet<const Value *, 16> Seen{&Phi};
  while (!Work.empty()) {
    const Value *V = Work.pop_back_val();
    if (!Seen.insert(V).second)
      continue;
    if (inOrderFPOp(L, V))
      return true;
    if (const auto *S = dyn_cast<SelectInst>(V); S && L.contains(S))
      Work.append({S->getTrueValue(), S->getFalseValue()});
    if (const auto *P = dyn_cast<PHINode>(V); P && L.contains(P))
      Work.append(P->op_begin(), P->op_end());
  }
  return false;
}

bool decan::mayReorderFP(const Loop &L) {
  if (any_of(L.getHeader()->phis(),
             [&](const PHINode &Phi) { return carriesInOrderFP(L, Phi); }))
    return true;
  // Through memory: an FP result stored at the same address every
  // iteration (read back by the next one, or by the vectoriser's reduction
  // with an intermediate store).
  for (const BasicBlock *BB : L.blocks())
    for (const Instruction &I : *BB) {
      const auto *St = dyn_cast<StoreInst>(&I);
      if (!St || !inOrderFPOp(L, St->getValueOperand()))
        continue;
      const Value *Ptr = St->getPointerOperand();
      const auto *GEP = dyn_cast<GetElementPtrInst>(Ptr);
      if (L.isLoopInvariant(Ptr) ||
          (GEP && L.contains(GEP) && L.hasLoopInvariantOperands(GEP)))
        return true;
    }
  return false;
}

PreservedAnalyses decan::TunePositionsCheckPass::run(Module &M,
                                                     ModuleAnalysisManager &) {
  SmallVector<std::pair<StringRef, StringRef>, 8> Wanted; // option, position
  for (StringRef P : DecanTune)
    Wanted.push_back({"-decan-tune", P});
  for (StringRef E : DecanLoopHints)
    Wanted.push_back({"-decan-loop-hints", E.rsplit('=').first});
  StringRef Source = M.getSourceFileName();
  // Positions in other files are other translation units' (or headers').
  erase_if(Wanted, [&](auto &W) {
    StringRef File = W.second.rsplit(':').first.rsplit(':').first;
    return File.empty() || !fileMatches(File, Source);
  });
  if (Wanted.empty())
    return PreservedAnalyses::all();
  SmallVector<const DILocation *, 16> Locs = moduleLoopStarts(M);
  std::set<std::tuple<std::string, unsigned, unsigned>> Starts;
  for (const DILocation *D : Locs)
    Starts.insert({D->getFilename().str(), D->getLine(), D->getColumn()});
  for (auto [Option, Pos] : Wanted) {
    if (any_of(Locs,
               [&](const DILocation *D) { return positionMatches(Pos, *D); }))
      continue;
    std::string Known;
    for (const auto &[File, Line, Col] : Starts)
      if (fileMatches(Pos.rsplit(':').first.rsplit(':').first, File))
        Known += (Known.empty() ? "" : ", ") + File + ":" +
                 std::to_string(Line) + ":" + std::to_string(Col);
    M.getContext().diagnose(DiagnosticInfoGeneric(
        "decan: " + Option + " position '" + Pos + "' matches no loop of " +
            Source + "; its loops start at " +
            (Known.empty() ? std::string("(none with a debug location)")
                           : Known),
        DS_Error));
  }
  return PreservedAnalyses::all();
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
    DebugLoc Loc = loopStartLoc(*L);
    const TuneCandidate *C = Loc ? Pick(*Loc.get()) : nullptr;
    if (!C || !C->hasHints())
      continue;
    // A clone's candidate was checked when it was built (IRTuneExtract).
    if (!Clone && C->mayReassociate() && !DecanTuneFastMath &&
        (C->Reciprocal || mayReorderFP(*L))) {
      ORE.emit([&] {
        return OptimizationRemarkMissed("decan", "LoopHintsNotApplied", Loc,
                                        L->getHeader())
               << "candidate " << ore::NV("Candidate", C->Name)
               << " not applied: it could "
               << (C->Reciprocal ? "round divisions differently"
                                 : "reorder floating-point arithmetic")
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
