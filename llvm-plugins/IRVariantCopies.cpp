//===- IRVariantCopies.cpp - decan: the variant copies of one loop -------===//
//
// Part of decan. See IRVariantCopies.h.
//
//===----------------------------------------------------------------------===//

#include "IRVariantCopies.h"
#include "IRIterationCap.h"
#include "IROutlinePlan.h"
#include "decan/abi_names.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Analysis/LoopAccessAnalysis.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

using namespace llvm;
using namespace decan;

/// True where the loop's machine code may hold a division or square root
/// (what NO_DIV deletes): a division or remainder; a call whose name
/// speaks of one (sqrt, pow, fmod, their intrinsics, x86's), which code
/// generation may expand inline; inline assembly. Other calls divide in
/// their own code, which NO_DIV keeps.
static bool mayDivide(const Loop &L) {
  for (const BasicBlock *BB : L.blocks())
    for (const Instruction &I : *BB) {
      switch (I.getOpcode()) {
      case Instruction::UDiv:
      case Instruction::SDiv:
      case Instruction::URem:
      case Instruction::SRem:
      case Instruction::FDiv:
      case Instruction::FRem:
        return true;
      default:
        break;
      }
      const auto *CB = dyn_cast<CallBase>(&I);
      if (!CB)
        continue;
      if (CB->isInlineAsm())
        return true;
      const Function *Callee = CB->getCalledFunction();
      if (!Callee)
        continue;
      for (StringRef Word : {"sqrt", "div", "rem", "pow", "fmod"})
        if (Callee->getName().contains_insensitive(Word))
          return true;
    }
  return false;
}

/// The variants of \p L no machine code can make usable.
static uint32_t unusableVariants(const Loop &L, const ExitMemory &EM,
                                 bool CappedWithTrips) {
  // The rules refuse every variant (VariantBuilder::checkLoop) of a loop
  // whose exit may read what it stores unless its copies carry an
  // iteration cap and count their trips (VariantOptions::ExitCapped).
  if (EM.MayReadStored && !CappedWithTrips)
    return ((1u << DECAN_NUM_VARIANTS) - 1) & ~(1u << DECAN_REF);
  return mayDivide(L) ? 0 : 1u << DECAN_NO_DIV;
}

/// What LoopAccessAnalysis sees of dependences \p L may carry through
/// memory, for the machine pass ("decan-memdep"): "" none; "adjacent" only
/// between accesses of one pointer one step apart (a[i] from a[i-1]), which
/// the machine level sees itself and keeps or reports; "other" anything
/// else -- a backward or unknown dependence at another distance, or a
/// run-time check between two accesses of one object (a[i] and a[i - d]).
/// Variants that drop stores then drop that chain and are reported as
/// bounds. Distinct pointers LAA merely cannot tell apart do not count:
/// every loop without `restrict` would be a bound.
StringRef decan::carriedMemory(Loop &L, FunctionAnalysisManager &FAM,
                               Function &F, ScalarEvolution &SE) {
  const LoopAccessInfo &LAI = FAM.getResult<LoopAccessAnalysis>(F).getInfo(L);
  if (!LAI.getNumStores() || !LAI.getNumLoads())
    return "";
  if (const RuntimePointerChecking *RC = LAI.getRuntimePointerChecking())
    for (const RuntimePointerCheck &C : RC->getChecks()) {
      auto Object = [&](const RuntimeCheckingPtrGroup *G) {
        return getUnderlyingObject(
            RC->Pointers[G->Members.front()].PointerValue);
      };
      if (Object(C.first) == Object(C.second))
        return "other";
    }
  const MemoryDepChecker &DC = LAI.getDepChecker();
  const auto *Deps = DC.getDependences();
  if (!Deps)
    return "other"; // too many to record: assume the worst
  StringRef Res = "";
  for (const MemoryDepChecker::Dependence &D : *Deps) {
    if (!D.isBackward() && D.Type != MemoryDepChecker::Dependence::Unknown &&
        D.Type != MemoryDepChecker::Dependence::IndirectUnsafe)
      continue;
    // One step apart: the difference of the two addresses is the stride.
    Value *PA = getLoadStorePointerOperand(D.getSource(DC));
    Value *PB = getLoadStorePointerOperand(D.getDestination(DC));
    auto *AR = PA ? dyn_cast<SCEVAddRecExpr>(SE.getSCEV(PA)) : nullptr;
    auto *Diff = PA && PB ? dyn_cast<SCEVConstant>(
                                SE.getMinusSCEV(SE.getSCEV(PA), SE.getSCEV(PB)))
                          : nullptr;
    auto *Step =
        AR ? dyn_cast<SCEVConstant>(AR->getStepRecurrence(SE)) : nullptr;
    if (!Diff || !Step || Diff->getAPInt().abs() != Step->getAPInt().abs())
      return "other";
    Res = "adjacent";
  }
  return Res;
}

SmallVector<Function *, DECAN_NUM_VARIANTS>
decan::buildVariantCopies(Function &F, const OutlinePlan &P, Function &Ref,
                          StringRef MemDep, const ExitMemory &EM) {
  uint32_t Unbuilt =
      P.Rec.VariantMask & unusableVariants(*P.L, EM,
                                           iterationCapsEnabled() &&
                                               P.IV != nullptr && !P.Rec.Nest);
  SmallVector<Function *, DECAN_NUM_VARIANTS> Fns{&Ref};
  for (unsigned V = 1; V < DECAN_NUM_VARIANTS; ++V) {
    if (!(P.Rec.VariantMask >> V & 1) || (Unbuilt >> V & 1)) {
      Fns.push_back(&Ref); // never chosen
      continue;
    }
    ValueToValueMapTy VMap;
    Function *C = CloneFunction(&Ref, VMap);
    C->setName(P.Rec.symbol(decan_variant_name(V)));
    C->addFnAttr("decan-variant", decan_variant_name(V));
    C->setLinkage(GlobalValue::InternalLinkage);
    C->setComdat(F.getComdat());
    Fns.push_back(C);
  }
  if (Unbuilt)
    Ref.addFnAttr(NotBuiltAttr, utostr(Unbuilt));
  if (!MemDep.empty())
    for (Function *Fn : Fns)
      Fn->addFnAttr("decan-memdep", MemDep);
  // Alias analysis decides for the machine rules whether a store of the
  // loop may write what its exit reads (no variant could then end like
  // REF: they never write program memory). A nest's every loop test is
  // judged (exitMemory): where none reads memory in the IR, a load the
  // machine code adds to one reads a slot of the copy's own (a spilled
  // bound, a stack argument) that no program store can reach, as for an
  // innermost loop; a spill the nest stores and reloads is one base
  // register, which the rules judge themselves.
  for (Function *Fn : Fns)
    Fn->addFnAttr("decan-exit-alias", EM.MayReadStored ? "may" : "no");
  return Fns;
}
