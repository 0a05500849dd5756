//===- IRStub.cpp - decan: the dispatch stub and the measure function -----===//
//
// Part of decan. Step 5 of the outline pass (IROutline.cpp): in the preheader
// of each outlined loop, the stub that checks the descriptor's `active` and
// countdown and calls the cold measure function (preserve_allcc), which
// calls its body through the module's one register-saving helper; the body
// runs a variant through the loop's variant table between
// __decan_begin_call and __decan_end_call (the picture is in IROutline.h).
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

/// The frame a measure function hands its body: the live-ins, then one
/// field per live-out, the exit index, cycles and trips (the body passes
/// the addresses of the last four to the copies).
static StructType *measureFrameType(OutlinePlan &P, LLVMContext &Ctx) {
  SmallVector<Type *, 16> Fields;
  for (Value *V : P.LiveIns)
    Fields.push_back(V->getType());
  for (PHINode *PN : P.LiveOuts)
    Fields.push_back(PN->getType());
  Type *I64 = Type::getInt64Ty(Ctx);
  Fields.append({Type::getInt32Ty(Ctx), I64, I64});
  return StructType::get(Ctx, Fields);
}

/// A preserve_allcc function restores the caller's YMM registers before it
/// returns; the vzeroupper that codegen puts before an AVX function's `ret`
/// would then clear their upper halves again (LLVM 22 inserts it whatever
/// the calling convention).
static void keepUpperHalves(Function &Fn) {
  std::string Features =
      Fn.getFnAttribute("target-features").getValueAsString().str();
  Fn.addFnAttr("target-features",
               Features.empty() ? "-vzeroupper" : Features + ",-vzeroupper");
}

/// The one function of the module per set of function attributes (the
/// target's features decide which vector registers preserve_allcc keeps)
/// that calls `fn(frame)` and saves every register the call may change:
///
///   preserve_allcc void decan.preserve_all(ptr fn, ptr frame) { fn(frame) }
///
/// Its saves (GPRs, XMM0-15, or YMM0-15 with AVX) are the caller's
/// guarantee; each loop's measure function calls its body through it, so
/// it saves only the few registers it uses itself.
static Function *preserveAllHelper(Module &M, const Function &MeasureFn) {
  LLVMContext &Ctx = M.getContext();
  // The measure function's attributes (target, frame pointer, red zone),
  // and unwind tables whatever the measure function's: debuggers and
  // unwinders walk through it.
  AttrBuilder AB(Ctx, MeasureFn.getAttributes().getFnAttrs());
  AB.addUWTableAttr(UWTableKind::Async);
  AttributeSet Attrs = AttributeSet::get(Ctx, AB);
  for (Function &G : M)
    if (G.getName().starts_with("decan.preserve_all") &&
        G.getAttributes().getFnAttrs() == Attrs)
      return &G;
  Type *PtrTy = PointerType::getUnqual(Ctx);
  FunctionType *BodyTy =
      FunctionType::get(Type::getVoidTy(Ctx), {PtrTy}, false);
  Function *H = Function::Create(
      FunctionType::get(Type::getVoidTy(Ctx), {PtrTy, PtrTy}, false),
      GlobalValue::InternalLinkage, "decan.preserve_all", M);
  H->setCallingConv(CallingConv::PreserveAll);
  H->setDSOLocal(true);
  H->setAttributes(AttributeList::get(Ctx, Attrs, AttributeSet(), {}));
  H->getArg(0)->setName("fn");
  H->getArg(1)->setName("frame");
  IRBuilder<> B(BasicBlock::Create(Ctx, "entry", H));
  // Not a tail call: the saves must be restored after it.
  B.CreateCall(BodyTy, H->getArg(0), {H->getArg(1)})
      ->setTailCallKind(CallInst::TCK_NoTail);
  B.CreateRetVoid();
  return H;
}

/// The measured path of one loop, out of line and cold so that the function
/// holding the loop keeps its unmeasured code (register use, frame) as in a
/// plain build: no call, no stack slot on the path the program takes.
///
///   void f.decan.L0.measure.body(ptr frame)   ; live-ins from the frame
///     v = __decan_begin_call(desc)
///     if (v u< N) {
///       // A fault in a copy other than REF: guard_enter returns 1.
///       if (v == REF || !__decan_guard_enter(variants[v]))
///         variants[v](live-ins, &frame.outs..., &frame.exit, &frame.cycles,
///                     &frame.trips)
///       if (!__decan_end_call(desc, v, cycles, trips))
///         return                   // REF (or replace mode): results stand
///     }
///     f.decan.L0.REF(live-ins, &frame.outs..., ...)  // the real loop
///     __decan_end_call(desc, v | DECAN_RERUN, cycles, trips)
///
/// The real loop after a variant (or on a call the runtime does not
/// measure) is the REF copy, the same IR as the inline loop, so that the
/// caller's values need not survive the cold call.
static Function *buildMeasureBody(Function &F, OutlinePlan &P, Constant *Desc,
                                  ArrayRef<Function *> Variants,
                                  StructType *FrameTy) {
  Module &M = *F.getParent();
  LLVMContext &Ctx = M.getContext();
  Type *I32 = Type::getInt32Ty(Ctx);
  Type *I64 = Type::getInt64Ty(Ctx);
  Type *PtrTy = PointerType::getUnqual(Ctx);
  Function *MF = Function::Create(
      FunctionType::get(Type::getVoidTy(Ctx), {PtrTy}, false),
      GlobalValue::InternalLinkage, P.Rec.symbol("measure.body"), M);
  MF->setAttributes(outlinedAttrs(F));
  MF->addFnAttr(Attribute::Cold);
  MF->setDSOLocal(true);
  MF->setComdat(F.getComdat());
  Argument *Frame = MF->getArg(0);
  Frame->setName("frame");

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
  BasicBlock *Done = BasicBlock::Create(Ctx, "done", MF);
  BasicBlock *Original = BasicBlock::Create(Ctx, "original", MF);
  IRBuilder<> B(Entry);
  unsigned Field = P.LiveIns.size();
  SmallVector<Value *, 8> Slots;
  for (PHINode *PN : P.LiveOuts)
    Slots.push_back(
        B.CreateStructGEP(FrameTy, Frame, Field++, PN->getName() + ".slot"));
  Value *ExitSlot = B.CreateStructGEP(FrameTy, Frame, Field++, "exit.slot");
  if (P.multiExit())
    Slots.push_back(ExitSlot);
  Value *CyclesSlot = B.CreateStructGEP(FrameTy, Frame, Field++, "cycles.slot");
  Value *TripsSlot = B.CreateStructGEP(FrameTy, Frame, Field, "trips.slot");
  Slots.append({CyclesSlot, TripsSlot});
  // The live-ins are read where each call needs them: loaded into the
  // argument registers there, not kept (spilled) across the other calls.
  auto copyArgs = [&]() {
    SmallVector<Value *, 16> Args;
    for (auto [I, V] : enumerate(P.LiveIns))
      Args.push_back(B.CreateLoad(
          V->getType(),
          B.CreateStructGEP(FrameTy, Frame, I, V->getName() + ".in"),
          V->getName()));
    Args.append(Slots.begin(), Slots.end());
    return Args;
  };
  CallInst *V = B.CreateCall(Begin, {Desc}, "variant");
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
  BasicBlock *Guard = BasicBlock::Create(Ctx, "guard", MF, Done);
  BasicBlock *Run = BasicBlock::Create(Ctx, "run", MF, Done);
  BasicBlock *Ended = BasicBlock::Create(Ctx, "ended", MF, Done);
  B.CreateCondBr(B.CreateICmpNE(V, B.getInt32(DECAN_REF)), Guard, Run);
  B.SetInsertPoint(Guard);
  FunctionCallee GuardEnter = runtimeFn(M, "__decan_guard_enter",
                                        FunctionType::get(I32, {PtrTy}, false));
  cast<Function>(GuardEnter.getCallee())->addFnAttr(Attribute::ReturnsTwice);
  CallInst *Guarded = B.CreateCall(GuardEnter, {FnPtr}, "faulted");
  Guarded->addFnAttr(Attribute::ReturnsTwice);
  B.CreateCondBr(B.CreateICmpNE(Guarded, B.getInt32(0)), Ended, Run);
  B.SetInsertPoint(Run);
  B.CreateCall(Variants[0]->getFunctionType(), FnPtr, copyArgs());
  B.CreateBr(Ended);
  B.SetInsertPoint(Ended);
  Value *Cycles = B.CreateLoad(I64, CyclesSlot, "cycles");
  Value *Trips = B.CreateLoad(I64, TripsSlot, "trips");
  Value *Again = B.CreateCall(End, {Desc, V, Cycles, Trips}, "again");
  B.CreateCondBr(B.CreateICmpNE(Again, B.getInt32(0)), Original, Done);

  B.SetInsertPoint(Done);
  B.CreateRetVoid();

  // Not measured, or a variant whose effects are not the program's: the
  // program's own results come from the REF copy, untimed. Running it here
  // instead of returning to the inline loop means nothing of the caller
  // but what follows the loop lives across this cold call.
  B.SetInsertPoint(Original);
  B.CreateCall(Variants[0], copyArgs());
  // Timed too: the call's real work for the whole-run totals, and after a
  // variant, the trip count of the same input.
  B.CreateCall(End, {Desc, B.CreateOr(V, B.getInt32(DECAN_RERUN)),
                     B.CreateLoad(I64, CyclesSlot, "rerun.cycles"),
                     B.CreateLoad(I64, TripsSlot, "rerun.trips")});
  B.CreateBr(Done);
  return MF;
}

/// The function the stub calls, `preserve_allcc` so that values of the
/// caller that live across the call stay in their registers (the caller
/// needs no callee-saved registers or spills for them on its unmeasured
/// path either):
///
///   {i32 exit, live-outs...} f.decan.L0.measure(live-ins...)
///     frame = {live-ins...}
///     decan.preserve_all(f.decan.L0.measure.body, &frame)
///     return {frame.exit, frame.outs...}
///
/// Saving everything the body's calls may change is the shared helper's
/// job (one per module), not each loop's.
static Function *buildMeasure(Function &F, OutlinePlan &P, Constant *Desc,
                              ArrayRef<Function *> Variants) {
  Module &M = *F.getParent();
  LLVMContext &Ctx = M.getContext();
  StructType *FrameTy = measureFrameType(P, Ctx);
  Function *Body = buildMeasureBody(F, P, Desc, Variants, FrameTy);

  SmallVector<Type *, 8> RetElts{Type::getInt32Ty(Ctx)};
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
  MF->setCallingConv(CallingConv::PreserveAll);
  keepUpperHalves(*MF);
  MF->setDSOLocal(true);
  MF->setComdat(F.getComdat());
  for (auto [I, V] : enumerate(P.LiveIns))
    MF->getArg(I)->setName(V->getName());

  IRBuilder<> B(BasicBlock::Create(Ctx, "entry", MF));
  AllocaInst *Frame = B.CreateAlloca(FrameTy, nullptr, "frame");
  for (Argument &A : MF->args())
    B.CreateStore(&A, B.CreateStructGEP(FrameTy, Frame, A.getArgNo(),
                                        A.getName() + ".in"));
  Function *Helper = preserveAllHelper(M, *MF);
  B.CreateCall(Helper, {Body, Frame})->setCallingConv(Helper->getCallingConv());
  unsigned OutBase = P.LiveIns.size();
  unsigned ExitField = OutBase + P.LiveOuts.size();
  Value *Ret = B.CreateInsertValue(
      PoisonValue::get(RetTy),
      P.multiExit() ? (Value *)B.CreateLoad(
                          B.getInt32Ty(),
                          B.CreateStructGEP(FrameTy, Frame, ExitField), "exit")
                    : B.getInt32(0),
      0);
  for (auto [J, PN] : enumerate(P.LiveOuts))
    Ret = B.CreateInsertValue(
        Ret,
        B.CreateLoad(PN->getType(),
                     B.CreateStructGEP(FrameTy, Frame, OutBase + J),
                     PN->getName()),
        J + 1);
  B.CreateRet(Ret);
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
