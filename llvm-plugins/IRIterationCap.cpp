//===- IRIterationCap.cpp - Variant copies that always end ----------------===//
//
// Part of decan. See IRIterationCap.h.
//
//===----------------------------------------------------------------------===//

#include "IRIterationCap.h"
#include "IRLoopTable.h"
#include "IROutline.h"

#include "decan/abi.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/AliasAnalysis.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/MemoryLocation.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Support/CommandLine.h"

using namespace llvm;

static cl::opt<bool> IterationCaps(
    "decan-iteration-caps", cl::init(true), cl::Hidden,
    cl::desc("Cap the iterations of variant copies whose exit reads memory "
             "(default on; off only to measure what the cap costs)"));

static cl::opt<bool> AssumeExitNoAlias(
    "decan-assume-exit-noalias", cl::init(false), cl::Hidden,
    cl::desc("Testing aid: take every exit-feeding load as disjoint from the "
             "loop's stores, so that variants the alias rule refuses are "
             "built and only the iteration cap ends them"));

decan::ExitMemory decan::exitMemory(const Loop &L, AAResults &AA) {
  // The backward slice of every exit condition inside the loop.
  SmallVector<Instruction *, 16> Work;
  SmallPtrSet<Instruction *, 32> Slice;
  // A nest's (IRNests.h) inner loops' exits too: each is a loop test.
  SmallVector<BasicBlock *, 4> Exiting;
  for (const Loop *Level : L.getLoopsInPreorder())
    Level->getExitingBlocks(Exiting);
  ExitMemory R;
  for (BasicBlock *BB : Exiting) {
    Instruction *T = BB->getTerminator();
    if (!isa<BranchInst>(T) && !isa<SwitchInst>(T)) {
      R.Reads = true; // an exit the slice cannot follow: assume the worst
      continue;
    }
    for (Value *Op : T->operands())
      if (auto *I = dyn_cast<Instruction>(Op))
        Work.push_back(I);
  }
  while (!Work.empty()) {
    Instruction *I = Work.pop_back_val();
    if (!L.contains(I) || !Slice.insert(I).second)
      continue;
    for (Value *Op : I->operands())
      if (auto *D = dyn_cast<Instruction>(Op))
        Work.push_back(D);
  }
  SmallVector<Instruction *, 8> Loads, Stores;
  for (Instruction *I : Slice)
    if (I->mayReadFromMemory())
      Loads.push_back(I);
  for (BasicBlock *BB : L.blocks())
    for (Instruction &I : *BB)
      if (I.mayWriteToMemory() && !isa<CallBase>(I)) // calls: machine rules
        Stores.push_back(&I);
  R.Reads |= !Loads.empty();
  if (AssumeExitNoAlias)
    return R;
  for (Instruction *Ld : Loads) {
    std::optional<MemoryLocation> LL = MemoryLocation::getOrNone(Ld);
    for (Instruction *St : Stores) {
      std::optional<MemoryLocation> SL = MemoryLocation::getOrNone(St);
      // Locations of one iteration: a store and a load of later
      // iterations are at other addresses, so any size is compared.
      if (!LL || !SL ||
          AA.alias(LL->getWithNewSize(LocationSize::beforeOrAfterPointer()),
                   SL->getWithNewSize(LocationSize::beforeOrAfterPointer())) !=
              AliasResult::NoAlias) {
        R.MayReadStored = true;
        return R;
      }
    }
  }
  return R;
}

bool decan::iterationCapsEnabled() { return IterationCaps; }

/// Counts the iterations of the loop at \p Header down from \p Cap, which
/// each entry from outside the loop starts over: each back edge (from
/// \p Latches) gets a block that counts one down, the last leaving to
/// \p Capped.
static void countDown(Function &Copy, BasicBlock *Header,
                      ArrayRef<BasicBlock *> Latches, Value *Cap,
                      BasicBlock *Capped, IRBuilder<> &B) {
  Type *I64 = Cap->getType();
  PHINode *Left = PHINode::Create(I64, Latches.size() + 1, "decan.left");
  for (BasicBlock *P : predecessors(Header))
    if (!is_contained(Latches, P))
      Left->addIncoming(Cap, P);
  Left->insertBefore(Header->begin());
  for (BasicBlock *Latch : Latches) {
    BasicBlock *Count =
        BasicBlock::Create(Copy.getContext(), "decan.count", &Copy, Header);
    Latch->getTerminator()->replaceSuccessorWith(Header, Count);
    for (PHINode &PN : Header->phis())
      if (&PN != Left)
        PN.replaceIncomingBlockWith(Latch, Count);
    B.SetInsertPoint(Count);
    Value *Next =
        B.CreateSub(Left, ConstantInt::get(I64, 1), "decan.left.next");
    B.CreateCondBr(B.CreateICmpEQ(Next, ConstantInt::get(I64, 0)), Capped,
                   Header);
    Left->addIncoming(Next, Count);
  }
}

void decan::addIterationCap(Function &Copy, Constant *Desc, StructType *DescTy,
                            bool TripsCounted, bool EveryLoop) {
  if (!IterationCaps)
    return;
  LLVMContext &Ctx = Copy.getContext();
  Type *I64 = Type::getInt64Ty(Ctx);
  BasicBlock &Entry = Copy.getEntryBlock();
  auto *EntryBr = cast<BranchInst>(Entry.getTerminator());
  // Each loop's header with its back edges' blocks: the outlined loop's
  // (entered from the entry block), or every loop's of a nest.
  SmallVector<std::pair<BasicBlock *, SmallVector<BasicBlock *, 4>>, 4> Loops;
  if (EveryLoop) {
    DominatorTree DT(Copy);
    LoopInfo LI(DT);
    for (Loop *L : LI.getLoopsInPreorder()) {
      SmallVector<BasicBlock *, 4> Latches;
      for (BasicBlock *P : predecessors(L->getHeader()))
        if (L->contains(P) && !is_contained(Latches, P))
          Latches.push_back(P);
      Loops.push_back({L->getHeader(), Latches});
    }
  } else {
    BasicBlock *Header = EntryBr->getSuccessor(0);
    SmallVector<BasicBlock *, 4> Latches;
    for (BasicBlock *P : predecessors(Header))
      if (P != &Entry && !is_contained(Latches, P))
        Latches.push_back(P);
    Loops.push_back({Header, Latches});
  }
  CallInst *T0 = nullptr;
  for (Instruction &I : Entry)
    if (auto *C = dyn_cast<CallInst>(&I); C && C->isInlineAsm()) {
      T0 = C;
      break;
    }
  assert(T0 && "an outlined copy starts with its probe");

  // The cap is read before the clock starts.
  IRBuilder<> B(T0);
  Value *CapPtr =
      B.CreateStructGEP(DescTy, Desc, abi_ir::DescIterationCap, "decan.cap.p");
  Value *Cap = B.CreateLoad(I64, CapPtr, /*isVolatile=*/true, "decan.cap");

  // Out of iterations: stop the clock, report DECAN_TRIPS_CAPPED.
  Argument *Cycles = Copy.getArg(Copy.arg_size() - 2);
  Argument *Trips = Copy.getArg(Copy.arg_size() - 1);
  BasicBlock *Capped = BasicBlock::Create(Ctx, "decan.capped", &Copy);
  B.SetInsertPoint(Capped);
  Value *T1 = B.CreateCall(probeAsm(Ctx, /*End=*/true), {}, "decan.t1");
  B.CreateStore(B.CreateSub(T1, T0), Cycles);
  B.CreateStore(ConstantInt::get(I64, DECAN_TRIPS_CAPPED), Trips);
  B.CreateRetVoid();

  for (auto &[Header, Latches] : Loops)
    countDown(Copy, Header, Latches, Cap, Capped, B);
  Copy.addFnAttr(CappedAttr);
  if (!TripsCounted)
    Copy.addFnAttr(TripsUnknownAttr);
}
