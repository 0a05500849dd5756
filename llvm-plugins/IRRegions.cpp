//===- IRRegions.cpp - Regions around outer loops and functions -----------===//
//
// Part of decan. See IRRegions.h.
//
//===----------------------------------------------------------------------===//

#include "IRRegions.h"
#include "IRLoopIdentity.h"
#include "IRLoopTable.h"
#include "IRSelection.h"

#include "decan/abi.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

using namespace llvm;
using namespace decan;

static cl::opt<bool> DecanRegions(
    "decan-regions",
    cl::desc("Also time outer loops and functions with loops as regions "
             "(REF only; measured under decan run --regions)"),
    cl::init(false));

bool decan::regionsRequested() { return DecanRegions; }

namespace {
/// Where one region's stubs go.
struct RegionPlan {
  LoopRecord Rec;
  SmallVector<Instruction *, 2> Enters; ///< insert the enter stub before
  SmallVector<Instruction *, 4> Leaves; ///< insert the leave stub before
};
} // namespace

/// Functions whose regions could not be left on every path decan sees, or
/// that decan itself made.
static bool skipFunction(const Function &F) {
  if (F.isDeclaration() || F.hasAvailableExternallyLinkage() ||
      F.hasFnAttribute("decan-variant") || F.getName().contains(".decan.") ||
      F.hasFnAttribute(Attribute::Naked))
    return true;
  for (const BasicBlock &BB : F)
    for (const Instruction &I : BB)
      if (const auto *CB = dyn_cast<CallBase>(&I))
        if (CB->hasFnAttr(Attribute::ReturnsTwice))
          return true; // setjmp: a second return skips the enter
  return false;
}

/// \p F calls itself directly: its regions' activations may nest.
static bool callsItself(const Function &F) {
  for (const BasicBlock &BB : F)
    for (const Instruction &I : BB)
      if (auto *CB = dyn_cast<CallBase>(&I))
        if (CB->getCalledFunction() == &F)
          return true;
  return false;
}

/// The regions of \p F: the function (when it has loops) and its outer
/// loops that contain other loops, numbered in header order.
static SmallVector<RegionPlan, 4> planRegions(Function &F, LoopInfo &LI) {
  SmallVector<RegionPlan, 4> Plans;
  if (LI.empty())
    return Plans;
  RegionPlan Fn;
  Fn.Rec.Function = F.getName().str();
  Fn.Rec.Region = Fn.Rec.WholeFunction = true;
  Fn.Rec.VariantMask = 1u << DECAN_REF;
  if (DISubprogram *SP = F.getSubprogram()) {
    Fn.Rec.File = sourcePath(SP->getDirectory(), SP->getFilename());
    Fn.Rec.Line = SP->getLine();
  }
  // After the entry block's allocas: they must stay in the entry block
  // (static allocas), which the stub splits.
  BasicBlock::iterator At = F.getEntryBlock().getFirstInsertionPt();
  while (isa<AllocaInst>(At))
    ++At;
  Fn.Enters.push_back(&*At);
  for (BasicBlock &BB : F)
    if (auto *Ret = dyn_cast<ReturnInst>(BB.getTerminator()))
      Fn.Leaves.push_back(Ret);
  Plans.push_back(Fn);

  SmallVector<Loop *, 8> Outer;
  for (Loop *L : LI.getTopLevelLoops())
    if (!L->isInnermost() && L->getLoopPreheader())
      Outer.push_back(L);
  // Header order, as innermost loops are numbered (docs/design.md).
  DenseMap<const BasicBlock *, unsigned> Order;
  for (BasicBlock &BB : F)
    Order[&BB] = Order.size();
  llvm::sort(Outer, [&](Loop *A, Loop *B) {
    return Order[A->getHeader()] < Order[B->getHeader()];
  });
  for (auto [K, L] : enumerate(Outer)) {
    RegionPlan P;
    P.Rec.Function = F.getName().str();
    P.Rec.Index = K;
    P.Rec.Region = true;
    P.Rec.VariantMask = 1u << DECAN_REF;
    setRecordLocation(P.Rec, loopStartLoc(*L));
    P.Enters.push_back(L->getLoopPreheader()->getTerminator());
    SmallVector<BasicBlock *, 4> Exits;
    L->getUniqueExitBlocks(Exits);
    for (BasicBlock *E : Exits)
      if (E->getFirstInsertionPt() != E->end())
        P.Leaves.push_back(&*E->getFirstInsertionPt());
    Plans.push_back(P);
  }
  // Nested activations get no stride (abi.h DECAN_DESC_RECURSIVE): only
  // the outermost one is timed, as the rewriter does.
  if (callsItself(F))
    for (RegionPlan &P : Plans)
      P.Rec.Recursive = true;
  return Plans;
}

/// Region descriptor states (`active`; abi.h, DECAN_DESC_REGION): 0 inert;
/// 1 every activation calls the runtime; 2 counting down to the next timed
/// activation (a stride); 3 a timed activation is open on the only thread
/// and `countdown` holds its nesting depth, so that recursion stays in the
/// stubs.
enum : uint32_t { RegionEvery = 1, RegionCounting = 2, RegionOpen = 3 };

/// A stub under construction before an instruction: the blocks between
/// its test of `active` and the continuation, and the value it read.
/// Inactive, the stub is one volatile load and an unlikely branch to Cont.
class Stub {
public:
  Stub(Instruction *Before, Constant *Desc, Type *DescTy)
      : Desc(Desc), DescTy(DescTy), B(Before->getContext()) {
    BasicBlock *Head = Before->getParent();
    F = Head->getParent();
    Cont = Head->splitBasicBlock(Before, "decan.region.cont");
    Head->getTerminator()->eraseFromParent();
    BasicBlock *On = block("decan.region.on");
    B.SetInsertPoint(Head);
    Value *Ptr = B.CreateStructGEP(DescTy, Desc, abi_ir::DescActive);
    Active = B.CreateLoad(B.getInt32Ty(), Ptr, /*Volatile=*/true,
                          "decan.region.active");
    B.CreateCondBr(B.CreateICmpNE(Active, B.getInt32(0)), On, Cont,
                   MDBuilder(F->getContext()).createUnlikelyBranchWeights());
    B.SetInsertPoint(On);
  }
  BasicBlock *block(const char *Name) {
    return BasicBlock::Create(F->getContext(), Name, F, Cont);
  }
  /// Branch on `active == State` from the current block.
  void branchOnState(uint32_t State, BasicBlock *Yes, BasicBlock *No) {
    B.CreateCondBr(B.CreateICmpEQ(Active, B.getInt32(State)), Yes, No);
  }
  /// `countdown += Delta` (volatile) in the current block; the new value.
  Value *addToCountdown(int Delta) {
    Value *Ptr = B.CreateStructGEP(DescTy, Desc, abi_ir::DescCountdown);
    Value *New =
        B.CreateAdd(B.CreateLoad(B.getInt32Ty(), Ptr, /*Volatile=*/true),
                    B.getInt32(Delta));
    B.CreateStore(New, Ptr, /*Volatile=*/true);
    return New;
  }
  /// \p Callee(desc) in \p Call, then on to the continuation.
  void emitCall(BasicBlock *Call, FunctionCallee Callee) {
    B.SetInsertPoint(Call);
    B.CreateCall(Callee, {Desc});
    B.CreateBr(Cont);
  }

  Constant *Desc;
  Type *DescTy;
  IRBuilder<> B;
  Function *F;
  BasicBlock *Cont;
  LoadInst *Active;
};

/// The enter stub before \p Before:
///   switch (desc.active) {
///   case 0: break;
///   case 3: ++desc.countdown; break;            // nested in the timed one
///   case 2: if (--desc.countdown > 0) break;    // a stride's untimed one
///   default: __decan_region_enter(&desc);
///   }
static void insertEnterStub(Instruction *Before, Constant *Desc, Type *DescTy,
                            FunctionCallee Enter) {
  Stub S(Before, Desc, DescTy);
  BasicBlock *Nest = S.block("decan.region.nest"),
             *NotNest = S.block("decan.region.notnest"),
             *Count = S.block("decan.region.count"),
             *Call = S.block("decan.region.enter");
  S.branchOnState(RegionOpen, Nest, NotNest);
  S.B.SetInsertPoint(Nest);
  S.addToCountdown(1);
  S.B.CreateBr(S.Cont);
  S.B.SetInsertPoint(NotNest);
  S.branchOnState(RegionCounting, Count, Call);
  S.B.SetInsertPoint(Count);
  Value *Left = S.addToCountdown(-1);
  S.B.CreateCondBr(S.B.CreateICmpSGT(Left, S.B.getInt32(0)), S.Cont, Call,
                   MDBuilder(S.F->getContext()).createLikelyBranchWeights());
  S.emitCall(Call, Enter);
}

/// The leave stub before \p Before:
///   switch (desc.active) {
///   case 1: __decan_region_leave(&desc); break;
///   case 3: if (--desc.countdown == 0) __decan_region_leave(&desc); break;
///   }
static void insertLeaveStub(Instruction *Before, Constant *Desc, Type *DescTy,
                            FunctionCallee Leave) {
  Stub S(Before, Desc, DescTy);
  BasicBlock *Open = S.block("decan.region.open"),
             *NotOpen = S.block("decan.region.notopen"),
             *Call = S.block("decan.region.leave");
  S.branchOnState(RegionOpen, Open, NotOpen);
  S.B.SetInsertPoint(Open);
  Value *Depth = S.addToCountdown(-1);
  S.B.CreateCondBr(S.B.CreateICmpEQ(Depth, S.B.getInt32(0)), Call, S.Cont,
                   MDBuilder(S.F->getContext()).createUnlikelyBranchWeights());
  S.B.SetInsertPoint(NotOpen);
  S.branchOnState(RegionEvery, Call, S.Cont);
  S.emitCall(Call, Leave);
}

PreservedAnalyses RegionPass::run(Module &M, ModuleAnalysisManager &MAM) {
  if (!DecanRegions || isDecanDisabled())
    return PreservedAnalyses::all();
  const Triple &TT = M.getTargetTriple();
  if (!TT.isX86() || !TT.isArch64Bit())
    return PreservedAnalyses::all();
  if (M.getNamedMetadata("decan.regions"))
    return PreservedAnalyses::all();
  auto &FAM = MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
  LLVMContext &Ctx = M.getContext();
  Type *Ptr = PointerType::getUnqual(Ctx);
  auto Runtime = [&](StringRef Name) {
    // Weak: a program linked without the runtime still links; the stubs
    // call it only once the runtime set `active`.
    Function *Fn = M.getFunction(Name);
    if (!Fn)
      Fn = Function::Create(
          FunctionType::get(Type::getVoidTy(Ctx), {Ptr}, false),
          GlobalValue::ExternalWeakLinkage, Name, M);
    return FunctionCallee(Fn->getFunctionType(), Fn);
  };
  FunctionCallee Enter = Runtime("__decan_region_enter");
  FunctionCallee Leave = Runtime("__decan_region_leave");

  SmallVector<Function *, 32> Worklist;
  for (Function &F : M)
    if (!skipFunction(F))
      Worklist.push_back(&F);
  LoopTableBuilder Table(M);
  bool Changed = false;
  for (Function *F : Worklist) {
    SmallVector<RegionPlan, 4> Plans =
        planRegions(*F, FAM.getResult<LoopAnalysis>(*F));
    for (RegionPlan &P : Plans) {
      Constant *Desc = Table.addLoop(P.Rec, F->getComdat());
      for (Instruction *I : P.Enters)
        insertEnterStub(I, Desc, Table.descType(), Enter);
      for (Instruction *I : P.Leaves)
        insertLeaveStub(I, Desc, Table.descType(), Leave);
      Changed = true;
    }
    if (!Plans.empty())
      FAM.invalidate(*F, PreservedAnalyses::none());
  }
  if (!Changed)
    return PreservedAnalyses::all();
  Table.finalize();
  M.getOrInsertNamedMetadata("decan.regions");
  return PreservedAnalyses::none();
}
