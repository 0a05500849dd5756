//===- IRTuneCandidates.cpp - decan: the tuning candidates ----------------===//
//
// Part of decan. See IRTuneCandidates.h.
//
//===----------------------------------------------------------------------===//

#include "IRTuneCandidates.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Metadata.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Transforms/Scalar/LoopInterchange.h"
#include "llvm/Transforms/Scalar/LoopPassManager.h"
#include "llvm/Transforms/Scalar/LoopUnrollAndJamPass.h"
#include "llvm/Transforms/Utils/LoopUtils.h"

using namespace llvm;

static cl::list<std::string> DecanTuneKinds(
    "decan-tune-kinds", cl::CommaSeparated,
    cl::desc("The candidate kinds to build per -decan-tune position, "
             "'+'-separated: vector, unroll, nest (decan flags --tune picks "
             "them from decan's diagnosis); default vector"),
    cl::value_desc("a.c:10:3=nest+vector,..."));

namespace decan {

namespace {
/// On the inner loop of a jammed nest: its jam count.
constexpr const char *JammedMark = "decan.loop.jammed";

using K = CandidateKind;
TuneCandidate make(const char *Name, CandidateKind Kind) {
  return {Name, Kind};
}
TuneCandidate vector(const char *Name, unsigned W, unsigned IL,
                     unsigned U = 0) {
  TuneCandidate C = make(Name, K::Vector);
  C.Width = W, C.Interleave = IL, C.Unroll = U;
  return C;
}
TuneCandidate unroll(const char *Name, unsigned U) {
  TuneCandidate C = make(Name, K::Unroll);
  C.Unroll = U;
  return C;
}
TuneCandidate nest(const char *Name, unsigned Jam, bool Distribute,
                   bool Interchange) {
  TuneCandidate C = make(Name, K::Nest);
  C.Jam = Jam, C.Distribute = Distribute, C.Interchange = Interchange;
  // Distribution acts on the loop itself: its copies need not hold the
  // parent (and then share the loop's calls, not the parent's).
  C.Nest = Jam || Interchange;
  return C;
}
TuneCandidate reciprocal() {
  TuneCandidate C = make("recip", K::Vector);
  C.Reciprocal = true;
  return C;
}

/// "default-twin" is the default again, at another address: how far two
/// copies of the same code differ (code layout, thesis 6.5.1) widens every
/// prediction, and it is never chosen. A hint the compiler cannot honour
/// (a dependence, a strict FP reduction) leaves the loop as the compiler
/// would; decan tune sees it in the clone's iteration step.
const TuneCandidate Table[] = {
    make("default", K::Base),
    make("default-twin", K::Base),
    vector("scalar", 1, 1),
    vector("scalar-unroll4", 1, 1, 4),
    vector("vf2", 2, 1),
    vector("vf4", 4, 1),
    vector("vf4-il2", 4, 2),
    vector("vf8", 8, 1),
    vector("vf8-il2", 8, 2),
    reciprocal(),
    unroll("unroll2", 2),
    unroll("unroll4", 4),
    unroll("unroll8", 8),
    nest("jam2", 2, false, false),
    nest("jam4", 4, false, false),
    nest("distribute", 0, true, false),
    nest("interchange", 0, false, true),
};

/// "dir/a.c:3:5" names the same position as "a.c:3:5".
bool samePosition(StringRef A, StringRef B) {
  auto Suffix = [](StringRef Long, StringRef Short) {
    return Long.ends_with(Short) &&
           (Long.size() == Short.size() ||
            Long[Long.size() - Short.size() - 1] == '/');
  };
  return Suffix(A, B) || Suffix(B, A);
}

/// The kinds -decan-tune-kinds asks at \p Pos; the vector kind if none.
SmallVector<CandidateKind, 3> kindsAt(StringRef Pos) {
  SmallVector<CandidateKind, 3> Out;
  bool Named = false;
  for (StringRef Entry : DecanTuneKinds) {
    auto [P, Kinds] = Entry.rsplit('=');
    if (!samePosition(P, Pos))
      continue;
    Named = true;
    SmallVector<StringRef, 3> Parts;
    Kinds.split(Parts, '+', -1, false);
    for (StringRef Kind : Parts)
      if (Kind == "vector")
        Out.push_back(K::Vector);
      else if (Kind == "unroll")
        Out.push_back(K::Unroll);
      else if (Kind == "nest")
        Out.push_back(K::Nest);
  }
  if (!Named)
    Out.push_back(K::Vector);
  return Out;
}

MDNode *hintNode(LLVMContext &Ctx, StringRef Name, Metadata *V = nullptr) {
  SmallVector<Metadata *, 2> Ops{MDString::get(Ctx, Name)};
  if (V)
    Ops.push_back(V);
  return MDNode::get(Ctx, Ops);
}

/// Adds \p Hints to \p L's loop ID, replacing its hints of their names.
void addHints(Loop &L, ArrayRef<MDNode *> Hints) {
  LLVMContext &Ctx = L.getHeader()->getContext();
  auto NameOf = [](const Metadata *M) -> StringRef {
    auto *N = dyn_cast<MDNode>(M);
    auto *S = N && N->getNumOperands() ? dyn_cast<MDString>(N->getOperand(0))
                                       : nullptr;
    return S ? S->getString() : "";
  };
  SmallVector<Metadata *, 8> Ops{nullptr};
  if (MDNode *Old = L.getLoopID())
    for (const MDOperand &Op : drop_begin(Old->operands()))
      if (none_of(Hints, [&](MDNode *H) { return NameOf(H) == NameOf(Op); }))
        Ops.push_back(Op);
  append_range(Ops, Hints);
  MDNode *ID = MDNode::getDistinct(Ctx, Ops);
  ID->replaceOperandWith(0, ID);
  L.setLoopID(ID);
}
} // namespace

ArrayRef<TuneCandidate> tuneCandidates() { return Table; }

const TuneCandidate *findTuneCandidate(StringRef Name) {
  for (const TuneCandidate &C : Table)
    if (Name == C.Name)
      return &C;
  return nullptr;
}

SmallVector<const TuneCandidate *, 16>
candidatesFor(ArrayRef<std::string> Positions, bool FastMath) {
  SmallVector<CandidateKind, 3> Kinds;
  for (const std::string &P : Positions)
    for (CandidateKind Kind : kindsAt(P))
      if (!is_contained(Kinds, Kind))
        Kinds.push_back(Kind);
  SmallVector<const TuneCandidate *, 16> Out;
  for (const TuneCandidate &C : Table)
    if (C.Kind == K::Base ||
        (is_contained(Kinds, C.Kind) && (FastMath || !C.Reciprocal)))
      Out.push_back(&C);
  return Out;
}

bool setNestHints(Loop &L, const TuneCandidate &C) {
  LLVMContext &Ctx = L.getHeader()->getContext();
  auto I32 = [&](unsigned V) {
    return ConstantAsMetadata::get(ConstantInt::get(Type::getInt32Ty(Ctx), V));
  };
  auto True = ConstantAsMetadata::get(ConstantInt::getTrue(Ctx));
  bool Set = false;
  if (C.Jam && L.getParentLoop()) {
    addHints(*L.getParentLoop(),
             {hintNode(Ctx, "llvm.loop.unroll_and_jam.enable"),
              hintNode(Ctx, "llvm.loop.unroll_and_jam.count", I32(C.Jam))});
    Set = true;
  }
  if (C.Distribute) {
    addHints(L, {hintNode(Ctx, "llvm.loop.distribute.enable", True)});
    Set = true;
  }
  return Set || (C.Interchange && L.getParentLoop());
}

bool allowReciprocals(Loop &L) {
  bool Changed = false;
  for (BasicBlock *BB : L.blocks())
    for (Instruction &I : *BB)
      if (I.getOpcode() == Instruction::FDiv && !I.hasAllowReciprocal()) {
        I.setHasAllowReciprocal(true);
        Changed = true;
      }
  return Changed;
}

void runNestPasses(Function &F, FunctionAnalysisManager &AM, bool Interchange,
                   ArrayRef<JamRequest> Jams) {
  FunctionPassManager FPM;
  if (Interchange)
    FPM.addPass(createFunctionToLoopPassAdaptor(LoopInterchangePass()));
  if (!Jams.empty())
    FPM.addPass(createFunctionToLoopPassAdaptor(LoopUnrollAndJamPass(2)));
  FPM.run(F, AM);
  if (Jams.empty())
    return;
  // A jammed loop is marked unrolled (llvm.loop.unroll.disable); its one
  // inner loop runs Count bodies of the source loop per iteration.
  LoopInfo &LI = AM.getResult<LoopAnalysis>(F);
  OptimizationRemarkEmitter ORE(&F);
  LLVMContext &Ctx = F.getContext();
  for (const JamRequest &J : Jams) {
    Loop *Outer = LI.getLoopFor(J.OuterHeader);
    bool Jammed = Outer && Outer->getHeader() == J.OuterHeader &&
                  Outer->getSubLoops().size() == 1 &&
                  findOptionMDForLoop(Outer, "llvm.loop.unroll.disable");
    if (Jammed) {
      addHints(*Outer->getSubLoops()[0],
               {hintNode(Ctx, JammedMark,
                         ConstantAsMetadata::get(ConstantInt::get(
                             Type::getInt32Ty(Ctx), J.Count)))});
      continue;
    }
    ORE.emit([&] {
      return OptimizationRemarkMissed("decan", "JamNotApplied",
                                      J.OuterHeader->getTerminator())
             << "candidate " << ore::NV("Candidate", J.Candidate->Name)
             << " not applied: LLVM did not unroll-and-jam the enclosing "
                "loop (the clone keeps the default's code)";
    });
  }
}

unsigned jammedBodies(const Loop &L) {
  if (MDNode *N = findOptionMDForLoop(&L, JammedMark))
    if (N->getNumOperands() == 2)
      if (auto *C = mdconst::dyn_extract<ConstantInt>(N->getOperand(1)))
        return std::max<unsigned>(1, C->getZExtValue());
  return 1;
}

} // namespace decan
