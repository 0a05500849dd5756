//===- IRStub.cpp - decan: the dispatch stub and the measure function -----===//
//
// Part of decan. Step 5 of the outline pass (IROutline.cpp): in the preheader
// of each outlined loop, the stub that checks the descriptor's `active` and
// countdown and calls the cold measure function, which runs a variant
// through the loop's variant table between __decan_begin_call and
// __decan_end_call (the picture is in IROutline.h).
//
//===----------------------------------------------------------------------===//

#include "IROutlinePlan.h"
#include "decan/abi.h"
#include "decan/abi_names.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"

using namespace llvm;
using namespace decan;

namespace {
constexpr unsigned NumVariants = DECAN_NUM_VARIANTS;
} // namespace

/// Declares an entry point of the runtime, weak so that a plugin build links
/// without it (it is only called once the runtime set `active`).
static FunctionCallee runtimeFn(Module &M, StringRef Name, FunctionType *Ty) {
  Function *Fn = M.getFunction(Name);
  if (!Fn) {
    Fn = Function::Create(Ty, GlobalValue::ExternalWeakLinkage, Name, M);
    Fn->addFnAttr(Attribute::NoUnwind);
  }
  return {Ty, Fn};
}

/// The measured path of one loop, out of line and cold so that the function
/// holding the loop keeps its unmeasured code (register use, frame) as in a
/// plain build: no call, no stack slot on the path the program takes.
///
///   {i32 exit, live-outs...} f.decan.L0.measure(live-ins...)
///     v = __decan_begin_call(desc)
///     if (v u< 6) {
///       if (v == REF || !__decan_guard_enter(variants[v]))  // a fault in
///         variants[v](live-ins, &outs..., &exit, &cycles, &trips) // it:
///                                                 // guard_enter returns 1
///       if (!__decan_end_call(desc, v, cycles, trips))
///         return {exit, outs...}   // REF (or replace mode): results stand
///     }
///     f.decan.L0.REF(live-ins, &outs..., &exit, ...)  // the real loop
///     __decan_end_call(desc, v | DECAN_RERUN, cycles, trips)
///     return {exit, outs...}
///
/// The real loop after a variant (or on a call the runtime does not
/// measure) is the REF copy, the same IR as the inline loop, so that the
/// caller's values need not survive the cold call.
static Function *buildMeasure(Function &F, OutlinePlan &P, Constant *Desc,
                              ArrayRef<Function *> Variants) {
  Module &M = *F.getParent();
  LLVMContext &Ctx = M.getContext();
  Type *I32 = Type::getInt32Ty(Ctx);
  Type *I64 = Type::getInt64Ty(Ctx);
  Type *PtrTy = PointerType::getUnqual(Ctx);

  SmallVector<Type *, 8> RetElts{I32};
  for (PHINode *PN : P.LiveOuts)
    RetElts.push_back(PN->getType());
  StructType *RetTy = StructType::get(Ctx, RetElts);
  SmallVector<Type *, 8> Params;
  for (Value *V : P.LiveIns)
    Params.push_back(V->getType());
  Function *MF = Function::Create(FunctionType::get(RetTy, Params, false),
                                  GlobalValue::InternalLinkage,
                                  P.Rec.symbol("measure"), M);
  MF->setAttributes(outlinedAttrs(F));
  MF->addFnAttr(Attribute::Cold);
  // Saves every register it uses: values of the caller that live across
  // the call stay in their registers, so the caller needs no callee-saved
  // registers or spills for them on its unmeasured path either.
  MF->setCallingConv(CallingConv::PreserveAll);
  MF->setDSOLocal(true);
  MF->setComdat(F.getComdat());
  for (auto [I, V] : enumerate(P.LiveIns))
    MF->getArg(I)->setName(V->getName());

  ArrayType *TableTy = ArrayType::get(PtrTy, NumVariants);
  SmallVector<Constant *, NumVariants> Fns(Variants.begin(), Variants.end());
  auto *Table = new GlobalVariable(
      M, TableTy, /*isConstant=*/true, GlobalValue::InternalLinkage,
      ConstantArray::get(TableTy, Fns), P.Rec.symbol("variants"));
  Table->setComdat(F.getComdat());
  FunctionCallee Begin = runtimeFn(M, "__decan_begin_call",
                                   FunctionType::get(I32, {PtrTy}, false));
  FunctionCallee End =
      runtimeFn(M, "__decan_end_call",
                FunctionType::get(I32, {PtrTy, I32, I64, I64}, false));

  BasicBlock *Entry = BasicBlock::Create(Ctx, "entry", MF);
  BasicBlock *Call = BasicBlock::Create(Ctx, "call", MF);
  BasicBlock *Take = BasicBlock::Create(Ctx, "take", MF);
  BasicBlock *Original = BasicBlock::Create(Ctx, "original", MF);
  IRBuilder<> B(Entry);
  SmallVector<AllocaInst *, 8> OutSlots;
  for (PHINode *PN : P.LiveOuts)
    OutSlots.push_back(
        B.CreateAlloca(PN->getType(), nullptr, PN->getName() + ".slot"));
  AllocaInst *ExitSlot =
      P.multiExit() ? B.CreateAlloca(I32, nullptr, "exit.slot") : nullptr;
  AllocaInst *CyclesSlot = B.CreateAlloca(I64, nullptr, "cycles.slot");
  AllocaInst *TripsSlot = B.CreateAlloca(I64, nullptr, "trips.slot");
  CallInst *V = B.CreateCall(Begin, {Desc}, "variant");
  SmallVector<Value *, 16> Args;
  for (Argument &A : MF->args())
    Args.push_back(&A);
  Args.append(OutSlots.begin(), OutSlots.end());
  if (ExitSlot)
    Args.push_back(ExitSlot);
  Args.push_back(CyclesSlot);
  Args.push_back(TripsSlot);
  B.CreateCondBr(B.CreateICmpULT(V, B.getInt32(NumVariants)), Call, Original);

  B.SetInsertPoint(Call);
  Value *FnPtr =
      B.CreateLoad(PtrTy,
                   B.CreateInBoundsGEP(TableTy, Table,
                                       {B.getInt64(0), B.CreateZExt(V, I64)}),
                   "fn");
  // A copy other than REF runs under the runtime's guard (abi.h): a fault
  // inside it comes back from the guard a second time, with 1, and the
  // call ends as if the copy had returned (end_call drops it, REF runs).
  BasicBlock *Guard = BasicBlock::Create(Ctx, "guard", MF, Take);
  BasicBlock *Run = BasicBlock::Create(Ctx, "run", MF, Take);
  BasicBlock *Ended = BasicBlock::Create(Ctx, "ended", MF, Take);
  B.CreateCondBr(B.CreateICmpNE(V, B.getInt32(DECAN_REF)), Guard, Run);
  B.SetInsertPoint(Guard);
  FunctionCallee GuardEnter = runtimeFn(M, "__decan_guard_enter",
                                        FunctionType::get(I32, {PtrTy}, false));
  cast<Function>(GuardEnter.getCallee())->addFnAttr(Attribute::ReturnsTwice);
  CallInst *Guarded = B.CreateCall(GuardEnter, {FnPtr}, "faulted");
  Guarded->addFnAttr(Attribute::ReturnsTwice);
  B.CreateCondBr(B.CreateICmpNE(Guarded, B.getInt32(0)), Ended, Run);
  B.SetInsertPoint(Run);
  B.CreateCall(Variants[0]->getFunctionType(), FnPtr, Args);
  B.CreateBr(Ended);
  B.SetInsertPoint(Ended);
  Value *Cycles = B.CreateLoad(I64, CyclesSlot, "cycles");
  Value *Trips = B.CreateLoad(I64, TripsSlot, "trips");
  Value *Again = B.CreateCall(End, {Desc, V, Cycles, Trips}, "again");
  B.CreateCondBr(B.CreateICmpNE(Again, B.getInt32(0)), Original, Take);

  B.SetInsertPoint(Take);
  Value *Ret = B.CreateInsertValue(
      PoisonValue::get(RetTy),
      ExitSlot ? (Value *)B.CreateLoad(I32, ExitSlot, "exit") : B.getInt32(0),
      0);
  for (auto [J, Slot] : enumerate(OutSlots))
    Ret = B.CreateInsertValue(Ret, B.CreateLoad(Slot->getAllocatedType(), Slot),
                              J + 1);
  B.CreateRet(Ret);

  // Not measured, or a variant whose effects are not the program's: the
  // program's own results come from the REF copy, untimed. Running it here
  // instead of returning to the inline loop means nothing of the caller
  // but what follows the loop lives across this cold call.
  B.SetInsertPoint(Original);
  B.CreateCall(Variants[0], Args);
  // Timed too: the call's real work for the whole-run totals, and after a
  // variant, the trip count of the same input.
  B.CreateCall(End, {Desc, B.CreateOr(V, B.getInt32(DECAN_RERUN)),
                     B.CreateLoad(I64, CyclesSlot, "rerun.cycles"),
                     B.CreateLoad(I64, TripsSlot, "rerun.trips")});
  B.CreateBr(Take);
  return MF;
}

void decan::insertStub(Function &F, OutlinePlan &P, Constant *Desc,
                       StructType *DescTy, ArrayRef<Function *> Variants) {
  LLVMContext &Ctx = F.getContext();
  Type *I32 = Type::getInt32Ty(Ctx);
  Function *Measure = buildMeasure(F, P, Desc, Variants);

  // The unmeasured path enters the loop through a new preheader, so the
  // loop keeps a single one.
  BasicBlock *PH = P.Preheader;
  PH->getTerminator()->eraseFromParent();
  BasicBlock *ModeBB = BasicBlock::Create(Ctx, "decan.mode", &F, P.Header);
  BasicBlock *CountBB = BasicBlock::Create(Ctx, "decan.count", &F, P.Header);
  BasicBlock *MeasureBB =
      BasicBlock::Create(Ctx, "decan.measure", &F, P.Header);
  BasicBlock *InlineBB = BasicBlock::Create(Ctx, "decan.inline", &F, P.Header);
  for (PHINode &PN : P.Header->phis())
    PN.replaceIncomingBlockWith(PH, InlineBB);
  BranchInst::Create(P.Header, InlineBB);

  IRBuilder<> B(PH);
  Value *ActivePtr =
      B.CreateStructGEP(DescTy, Desc, abi_ir::DescActive, "decan.active.ptr");
  LoadInst *Active = B.CreateAlignedLoad(I32, ActivePtr, Align(4),
                                         /*isVolatile=*/true, "decan.active");
  B.CreateCondBr(B.CreateICmpNE(Active, B.getInt32(0)), ModeBB, InlineBB,
                 MDBuilder(Ctx).createUnlikelyBranchWeights());

  // At active == 2 only every countdown-th call goes to the runtime (abi.h):
  // the accounting stride of loops with very short calls.
  B.SetInsertPoint(ModeBB);
  B.CreateCondBr(B.CreateICmpEQ(Active, B.getInt32(2)), CountBB, MeasureBB);
  B.SetInsertPoint(CountBB);
  Value *CountPtr = B.CreateStructGEP(DescTy, Desc, abi_ir::DescCountdown,
                                      "decan.countdown.ptr");
  Value *Count =
      B.CreateSub(B.CreateAlignedLoad(I32, CountPtr, Align(4),
                                      /*isVolatile=*/true, "decan.countdown"),
                  B.getInt32(1), "decan.countdown.next");
  B.CreateAlignedStore(Count, CountPtr, Align(4), /*isVolatile=*/true);
  B.CreateCondBr(B.CreateICmpSGT(Count, B.getInt32(0)), InlineBB, MeasureBB);

  B.SetInsertPoint(MeasureBB);
  CallInst *R = B.CreateCall(Measure, P.LiveIns, "decan.result");
  R->setCallingConv(Measure->getCallingConv());
  // The loop ran out of line through exit K; its live-outs come back in R.
  SmallVector<BasicBlock *, 4> TakeBBs;
  for (unsigned K = 0; K < P.Exits.size(); ++K)
    TakeBBs.push_back(BasicBlock::Create(
        Ctx, "decan.take" + (P.multiExit() ? "." + Twine(K) : Twine()), &F,
        P.Header));
  if (P.multiExit()) {
    Value *Exit = B.CreateExtractValue(R, 0, "decan.exit");
    SwitchInst *SI = B.CreateSwitch(Exit, TakeBBs.back(), P.Exits.size() - 1);
    for (unsigned K = 0; K + 1 < P.Exits.size(); ++K)
      SI->addCase(B.getInt32(K), TakeBBs[K]);
  } else {
    B.CreateBr(TakeBBs[0]);
  }
  for (auto [K, E] : enumerate(P.Exits)) {
    BasicBlock *TakeBB = TakeBBs[K];
    IRBuilder<> TB(TakeBB);
    for (auto [J, PN] : enumerate(P.LiveOuts))
      if (PN->getParent() == E)
        PN->addIncoming(
            TB.CreateExtractValue(R, J + 1, PN->getName() + ".decan"), TakeBB);
    TB.CreateBr(E);
  }
}
