//===- IRRegions.cpp - Regions around outer loops and functions -----------===//
//
// Part of decan. See IRRegions.h.
//
//===----------------------------------------------------------------------===//

#include "IRRegions.h"
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

static void setLocation(LoopRecord &R, DebugLoc DL) {
  if (!DL)
    return;
  R.File = DL->getFilename().str();
  R.Line = DL.getLine();
  R.Column = DL.getCol();
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
    Fn.Rec.File = SP->getFilename().str();
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
    setLocation(P.Rec, L->getStartLoc());
    P.Enters.push_back(L->getLoopPreheader()->getTerminator());
    SmallVector<BasicBlock *, 4> Exits;
    L->getUniqueExitBlocks(Exits);
    for (BasicBlock *E : Exits)
      if (E->getFirstInsertionPt() != E->end())
        P.Leaves.push_back(&*E->getFirstInsertionPt());
    Plans.push_back(P);
  }
  return Plans;
}

/// The enter stub before \p Before, counting down at an accounting stride
/// as the loops' stub does (abi.h): one volatile load and an unlikely
/// branch while inactive.
///   if (desc.active) {
///     if (desc.active != 2 || --desc.countdown <= 0)
///       __decan_region_enter(&desc);
///   }
static void insertEnterStub(Instruction *Before, Constant *Desc, Type *DescTy,
                            FunctionCallee Enter) {
  BasicBlock *Head = Before->getParent();
  Function *F = Head->getParent();
  LLVMContext &Ctx = F->getContext();
  BasicBlock *Cont = Head->splitBasicBlock(Before, "decan.region.cont");
  Head->getTerminator()->eraseFromParent();
  BasicBlock *On = BasicBlock::Create(Ctx, "decan.region.on", F, Cont);
  BasicBlock *Count = BasicBlock::Create(Ctx, "decan.region.count", F, Cont);
  BasicBlock *Call = BasicBlock::Create(Ctx, "decan.region.enter", F, Cont);
  MDBuilder MDB(Ctx);
  IRBuilder<> B(Head);
  Value *ActivePtr = B.CreateStructGEP(DescTy, Desc, abi_ir::DescActive);
  LoadInst *Active = B.CreateLoad(B.getInt32Ty(), ActivePtr, /*Volatile=*/true,
                                  "decan.region.active");
  B.CreateCondBr(B.CreateICmpNE(Active, B.getInt32(0)), On, Cont,
                 MDB.createUnlikelyBranchWeights());
  B.SetInsertPoint(On);
  B.CreateCondBr(B.CreateICmpEQ(Active, B.getInt32(2)), Count, Call);
  B.SetInsertPoint(Count);
  Value *CountPtr = B.CreateStructGEP(DescTy, Desc, abi_ir::DescCountdown);
  Value *Left = B.CreateSub(
      B.CreateLoad(B.getInt32Ty(), CountPtr, /*Volatile=*/true), B.getInt32(1));
  B.CreateStore(Left, CountPtr, /*Volatile=*/true);
  B.CreateCondBr(B.CreateICmpSGT(Left, B.getInt32(0)), Cont, Call,
                 MDB.createLikelyBranchWeights());
  B.SetInsertPoint(Call);
  B.CreateCall(Enter, {Desc});
  B.CreateBr(Cont);
}

/// The leave stub before \p Before: `if (desc.active == 1) leave(&desc)`;
/// at a stride (2) only the timed activation's enter set it back to 1.
static void insertLeaveStub(Instruction *Before, Constant *Desc, Type *DescTy,
                            FunctionCallee Leave) {
  IRBuilder<> B(Before);
  Value *ActivePtr = B.CreateStructGEP(DescTy, Desc, abi_ir::DescActive);
  LoadInst *Active = B.CreateLoad(B.getInt32Ty(), ActivePtr, /*Volatile=*/true,
                                  "decan.region.active");
  MDBuilder MDB(B.getContext());
  Instruction *Then = SplitBlockAndInsertIfThen(
      B.CreateICmpEQ(Active, B.getInt32(1)), Before, /*Unreachable=*/false,
      MDB.createUnlikelyBranchWeights());
  IRBuilder<> T(Then);
  T.CreateCall(Leave, {Desc});
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
