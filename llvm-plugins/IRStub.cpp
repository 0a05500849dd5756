//===- IRStub.cpp - decan: the dispatch stub and the measure function -----===//
//
// Part of decan. Step 5 of the outline pass (IROutline.cpp): in the preheader
// of each outlined loop, the stub that checks the descriptor's `active` and
// countdown and calls the cold measure function (preserve_allcc), which
// calls the module's measured call through the module's one
// register-saving helper; that one runs a variant of the loop between
// __decan_begin_call and __decan_end_call through the loop's measure record
// and the module's call function for the loop's frame, the one call site
// of the copies (the picture is in IROutline.h).
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

/// The frame a measure function hands the module's measured call: cycles
/// and trips first (the one layout `decan.measure_call` reads), the exit
/// index, the live-ins, then one field per live-out (the loop's call
/// function passes the addresses of all but the live-ins to the copies).
enum : unsigned { FrameCycles, FrameTrips, FrameExit, FrameLiveIns };

static StructType *measureFrameType(OutlinePlan &P, LLVMContext &Ctx) {
  Type *I64 = Type::getInt64Ty(Ctx);
  SmallVector<Type *, 16> Fields{I64, I64, Type::getInt32Ty(Ctx)};
  for (Value *V : P.LiveIns)
    Fields.push_back(V->getType());
  for (PHINode *PN : P.LiveOuts)
    Fields.push_back(PN->getType());
  return StructType::get(Ctx, Fields);
}

/// A loop's measure record, `f.decan.L0.variants`: what the module's
/// measured call needs of one loop, so that the loop's own code is only its
/// measure function.
///
///   { ptr desc, ptr call, [N x ptr] copies }   ; copies[v]: variant v's copy
enum : unsigned { RecDesc, RecCall, RecCopies };

static StructType *measureRecordType(LLVMContext &Ctx) {
  Type *PtrTy = PointerType::getUnqual(Ctx);
  return StructType::get(Ctx,
                         {PtrTy, PtrTy, ArrayType::get(PtrTy, NumVariants)});
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

/// The measured call of any loop of the module, an ordinary function (one
/// per set of function attributes, beside its helper below):
///
///   void decan.measure_call(ptr rec, ptr frame)
///     v = __decan_begin_call(rec.desc)
///     if (v u< N) {
///       // A fault in a copy other than REF: guard_enter returns 1.
///       if (v == REF || !__decan_guard_enter(rec.copies[v]))
///         rec.call(rec.copies[v], frame)
///       if (!__decan_end_call(rec.desc, v, frame.cycles, frame.trips))
///         return                   // REF (or replace mode): results stand
///     }
///     rec.call(rec.copies[REF], frame)  // the real loop
///     __decan_end_call(rec.desc, v | DECAN_RERUN, frame.cycles, frame.trips)
///
/// The real loop after a variant (or on a call the runtime does not
/// measure) is the REF copy, the same IR as the inline loop, so that the
/// caller's values need not survive the cold call. Of the call, a loop has
/// only its record; the call site of its copies is the module's call
/// function for its frame (callFunction).
static Function *buildMeasuredCall(Module &M, AttributeSet Attrs) {
  LLVMContext &Ctx = M.getContext();
  Type *I32 = Type::getInt32Ty(Ctx);
  Type *I64 = Type::getInt64Ty(Ctx);
  Type *PtrTy = PointerType::getUnqual(Ctx);
  FunctionType *CallTy =
      FunctionType::get(Type::getVoidTy(Ctx), {PtrTy, PtrTy}, false);
  Function *MF = Function::Create(CallTy, GlobalValue::InternalLinkage,
                                  "decan.measure_call", M);
  MF->setAttributes(AttributeList::get(Ctx, Attrs, AttributeSet(), {}));
  MF->setDSOLocal(true);
  Argument *Rec = MF->getArg(0), *Frame = MF->getArg(1);
  Rec->setName("rec");
  Frame->setName("frame");
  StructType *RecTy = measureRecordType(Ctx);
  // The frame's first fields, the same in every loop's frame.
  StructType *FrameHead = StructType::get(Ctx, {I64, I64});
  FunctionCallee Begin = runtimeFn(M, "__decan_begin_call",
                                   FunctionType::get(I32, {PtrTy}, false));
  FunctionCallee End =
      runtimeFn(M, "__decan_end_call",
                FunctionType::get(I32, {PtrTy, I32, I64, I64}, false));
  FunctionCallee GuardEnter = runtimeFn(M, "__decan_guard_enter",
                                        FunctionType::get(I32, {PtrTy}, false));
  cast<Function>(GuardEnter.getCallee())->addFnAttr(Attribute::ReturnsTwice);

  BasicBlock *Entry = BasicBlock::Create(Ctx, "entry", MF);
  BasicBlock *Pick = BasicBlock::Create(Ctx, "pick", MF);
  BasicBlock *Guard = BasicBlock::Create(Ctx, "guard", MF);
  BasicBlock *Run = BasicBlock::Create(Ctx, "run", MF);
  BasicBlock *Ended = BasicBlock::Create(Ctx, "ended", MF);
  BasicBlock *Done = BasicBlock::Create(Ctx, "done", MF);
  BasicBlock *Original = BasicBlock::Create(Ctx, "original", MF);
  IRBuilder<> B(Entry);
  Value *Desc = B.CreateLoad(
      PtrTy, B.CreateStructGEP(RecTy, Rec, RecDesc, "desc.ptr"), "desc");
  Value *Call = B.CreateLoad(
      PtrTy, B.CreateStructGEP(RecTy, Rec, RecCall, "call.ptr"), "call");
  Value *CyclesSlot =
      B.CreateStructGEP(FrameHead, Frame, FrameCycles, "cycles.slot");
  Value *TripsSlot =
      B.CreateStructGEP(FrameHead, Frame, FrameTrips, "trips.slot");
  CallInst *V = B.CreateCall(Begin, {Desc}, "variant");
  B.CreateCondBr(B.CreateICmpULT(V, B.getInt32(NumVariants)), Pick, Original);

  B.SetInsertPoint(Pick);
  Value *Copy =
      B.CreateLoad(PtrTy,
                   B.CreateInBoundsGEP(RecTy, Rec,
                                       {B.getInt64(0), B.getInt32(RecCopies),
                                        B.CreateZExt(V, I64)}),
                   "copy");
  // A copy other than REF runs under the runtime's guard (abi.h): a fault
  // inside it comes back from the guard a second time, with 1, and the
  // call ends as if the copy had returned (end_call drops it, REF runs).
  B.CreateCondBr(B.CreateICmpNE(V, B.getInt32(DECAN_REF)), Guard, Run);
  B.SetInsertPoint(Guard);
  CallInst *Guarded = B.CreateCall(GuardEnter, {Copy}, "faulted");
  Guarded->addFnAttr(Attribute::ReturnsTwice);
  B.CreateCondBr(B.CreateICmpNE(Guarded, B.getInt32(0)), Ended, Run);
  B.SetInsertPoint(Run);
  B.CreateCall(CallTy, Call, {Copy, Frame});
  B.CreateBr(Ended);
  B.SetInsertPoint(Ended);
  Value *Again = B.CreateCall(End,
                              {Desc, V, B.CreateLoad(I64, CyclesSlot, "cycles"),
                               B.CreateLoad(I64, TripsSlot, "trips")},
                              "again");
  B.CreateCondBr(B.CreateICmpNE(Again, B.getInt32(0)), Original, Done);

  B.SetInsertPoint(Done);
  B.CreateRetVoid();

  // Not measured, or a variant whose effects are not the program's: the
  // program's own results come from the REF copy, untimed. Running it here
  // instead of returning to the inline loop means nothing of the caller
  // but what follows the loop lives across this cold call.
  B.SetInsertPoint(Original);
  Value *Ref =
      B.CreateLoad(PtrTy,
                   B.CreateInBoundsGEP(RecTy, Rec,
                                       {B.getInt64(0), B.getInt32(RecCopies),
                                        B.getInt64(DECAN_REF)},
                                       "ref.ptr"),
                   "ref");
  B.CreateCall(CallTy, Call, {Ref, Frame});
  // Timed too: the call's real work for the whole-run totals, and after a
  // variant, the trip count of the same input.
  B.CreateCall(End, {Desc, B.CreateOr(V, B.getInt32(DECAN_RERUN)),
                     B.CreateLoad(I64, CyclesSlot, "rerun.cycles"),
                     B.CreateLoad(I64, TripsSlot, "rerun.trips")});
  B.CreateBr(Done);
  return MF;
}

/// The one function of the module per set of function attributes (the
/// target's features decide which vector registers preserve_allcc keeps)
/// that runs a loop's measured call and saves every register it may
/// change:
///
///   preserve_allcc void decan.preserve_all(ptr rec, ptr frame) {
///     decan.measure_call(rec, frame)
///   }
///
/// Its saves (GPRs, XMM0-15, or YMM0-15 with AVX) are the caller's
/// guarantee; each loop's measure function calls it, so it saves only the
/// few registers it uses itself.
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
  Function *Measured = buildMeasuredCall(M, Attrs);
  Function *H =
      Function::Create(Measured->getFunctionType(),
                       GlobalValue::InternalLinkage, "decan.preserve_all", M);
  H->setCallingConv(CallingConv::PreserveAll);
  H->setDSOLocal(true);
  H->setAttributes(AttributeList::get(Ctx, Attrs, AttributeSet(), {}));
  H->getArg(0)->setName("rec");
  H->getArg(1)->setName("frame");
  IRBuilder<> B(BasicBlock::Create(Ctx, "entry", H));
  // Not a tail call: the saves must be restored after it.
  B.CreateCall(Measured, {H->getArg(0), H->getArg(1)})
      ->setTailCallKind(CallInst::TCK_NoTail);
  B.CreateRetVoid();
  return H;
}

/// The one call site of the copies of every loop whose copies take the
/// same arguments (one such function per frame type, copy type and set of
/// function attributes in the module), for the module's measured call:
///
///   void decan.call(ptr copy, ptr frame)
///     copy(frame.live-ins..., &frame.outs..., &frame.exit, &frame.cycles,
///          &frame.trips)
///
/// The live-ins are loaded into the argument registers here, the only
/// place they are needed. Its metadata `decan.frame` says which frame it
/// was built for: the frame type (a poison value of it), how many of the
/// frame's fields are live-ins, whether the copies take the exit index.
static Function *callFunction(Function &F, OutlinePlan &P,
                              ArrayRef<Function *> Variants,
                              StructType *FrameTy) {
  Module &M = *F.getParent();
  LLVMContext &Ctx = M.getContext();
  Type *PtrTy = PointerType::getUnqual(Ctx);
  FunctionType *CopyTy = Variants[0]->getFunctionType();
  AttrBuilder AB(Ctx, outlinedAttrs(F).getFnAttrs());
  // Cold, and no alignment padding between such small functions.
  AB.addAttribute(Attribute::Cold).addAttribute(Attribute::OptimizeForSize);
  AttributeSet Attrs = AttributeSet::get(Ctx, AB);
  // The frame type, how many of its fields are live-ins, whether the copy
  // takes the exit index: the copy type follows.
  Type *I32 = Type::getInt32Ty(Ctx);
  MDNode *Key = MDNode::get(
      Ctx, {ConstantAsMetadata::get(PoisonValue::get(FrameTy)),
            ConstantAsMetadata::get(ConstantInt::get(I32, P.LiveIns.size())),
            ConstantAsMetadata::get(ConstantInt::get(I32, P.multiExit()))});
  for (Function &G : M)
    if (G.getName().starts_with("decan.call") &&
        G.getMetadata("decan.frame") == Key &&
        G.getAttributes().getFnAttrs() == Attrs)
      return &G;
  Function *CF = Function::Create(
      FunctionType::get(Type::getVoidTy(Ctx), {PtrTy, PtrTy}, false),
      GlobalValue::InternalLinkage, "decan.call", M);
  CF->setAttributes(AttributeList::get(Ctx, Attrs, AttributeSet(), {}));
  CF->setDSOLocal(true);
  CF->setMetadata("decan.frame", Key);
  Argument *Copy = CF->getArg(0), *Frame = CF->getArg(1);
  Copy->setName("copy");
  Frame->setName("frame");

  IRBuilder<> B(BasicBlock::Create(Ctx, "entry", CF));
  SmallVector<Value *, 16> Args;
  for (auto [I, V] : enumerate(P.LiveIns))
    Args.push_back(
        B.CreateLoad(V->getType(),
                     B.CreateStructGEP(FrameTy, Frame, FrameLiveIns + I,
                                       "in" + Twine(I) + ".slot"),
                     "in" + Twine(I)));
  unsigned OutBase = FrameLiveIns + P.LiveIns.size();
  for (unsigned J = 0; J < P.LiveOuts.size(); ++J)
    Args.push_back(B.CreateStructGEP(FrameTy, Frame, OutBase + J,
                                     "out" + Twine(J) + ".slot"));
  if (P.multiExit())
    Args.push_back(B.CreateStructGEP(FrameTy, Frame, FrameExit, "exit.slot"));
  Args.push_back(B.CreateStructGEP(FrameTy, Frame, FrameCycles, "cycles.slot"));
  Args.push_back(B.CreateStructGEP(FrameTy, Frame, FrameTrips, "trips.slot"));
  B.CreateCall(CopyTy, Copy, Args)->setTailCallKind(CallInst::TCK_Tail);
  B.CreateRetVoid();
  return CF;
}

/// The loop's measure record (measureRecordType).
static GlobalVariable *buildMeasureRecord(Function &F, OutlinePlan &P,
                                          Constant *Desc, Function *Call,
                                          ArrayRef<Function *> Variants) {
  Module &M = *F.getParent();
  LLVMContext &Ctx = M.getContext();
  StructType *RecTy = measureRecordType(Ctx);
  auto *CopiesTy = cast<ArrayType>(RecTy->getElementType(RecCopies));
  SmallVector<Constant *, NumVariants> Fns(Variants.begin(), Variants.end());
  auto *Rec = new GlobalVariable(
      M, RecTy, /*isConstant=*/true, GlobalValue::InternalLinkage,
      ConstantStruct::get(RecTy,
                          {Desc, Call, ConstantArray::get(CopiesTy, Fns)}),
      P.Rec.symbol("variants"));
  Rec->setComdat(F.getComdat());
  return Rec;
}

/// The function the stub calls, `preserve_allcc` so that values of the
/// caller that live across the call stay in their registers (the caller
/// needs no callee-saved registers or spills for them on its unmeasured
/// path either):
///
///   {i32 exit, live-outs...} f.decan.L0.measure(live-ins...)
///     frame = {.live-ins = live-ins...}
///     decan.preserve_all(&f.decan.L0.variants, &frame)
///     return {frame.exit, frame.outs...}
///
/// Saving everything the measured call may change is the shared helper's
/// job (one per module), not each loop's.
static Function *buildMeasure(Function &F, OutlinePlan &P, Constant *Desc,
                              ArrayRef<Function *> Variants) {
  Module &M = *F.getParent();
  LLVMContext &Ctx = M.getContext();
  StructType *FrameTy = measureFrameType(P, Ctx);
  GlobalVariable *Rec = buildMeasureRecord(
      F, P, Desc, callFunction(F, P, Variants, FrameTy), Variants);

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
  // Cold, and no alignment padding between these small functions.
  MF->addFnAttr(Attribute::Cold);
  MF->addFnAttr(Attribute::OptimizeForSize);
  MF->setCallingConv(CallingConv::PreserveAll);
  keepUpperHalves(*MF);
  MF->setDSOLocal(true);
  MF->setComdat(F.getComdat());
  for (auto [I, V] : enumerate(P.LiveIns))
    MF->getArg(I)->setName(V->getName());

  IRBuilder<> B(BasicBlock::Create(Ctx, "entry", MF));
  AllocaInst *Frame = B.CreateAlloca(FrameTy, nullptr, "frame");
  for (Argument &A : MF->args())
    B.CreateStore(&A,
                  B.CreateStructGEP(FrameTy, Frame, FrameLiveIns + A.getArgNo(),
                                    A.getName() + ".in"));
  Function *Helper = preserveAllHelper(M, *MF);
  B.CreateCall(Helper, {Rec, Frame})->setCallingConv(Helper->getCallingConv());
  unsigned OutBase = FrameLiveIns + P.LiveIns.size();
  Value *Ret = B.CreateInsertValue(
      PoisonValue::get(RetTy),
      P.multiExit() ? (Value *)B.CreateLoad(
                          B.getInt32Ty(),
                          B.CreateStructGEP(FrameTy, Frame, FrameExit), "exit")
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
