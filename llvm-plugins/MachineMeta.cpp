//===- MachineMeta.cpp - The machine pass's outcome in the meta record ----===//
//
// Part of decan. What the machine pass (MachineVariants.cpp) found of each
// variant goes into the loop's `.meta` record (decan_machine_info: status,
// loop bytes, why, subset counts, groups) and, for a bound, into the
// bound_mask of the meta record and of the loop's descriptor
// (IRLoopTable.h).
//
//===----------------------------------------------------------------------===//

#include "MachineMeta.h"
#include "IRLoopTable.h"

#include "decan/InstrKnowledge/Subsets.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalAlias.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"

#include <algorithm>
#include <array>
#include <cstring>

using namespace llvm;
using namespace decan;

/// \p Init with bit \p Bit set in its 32-bit element \p Elt (a
/// bound_mask); null when it has no such element.
static Constant *withBoundBit(Constant *Init, unsigned Elt, unsigned Bit) {
  auto *S = dyn_cast_or_null<ConstantStruct>(Init);
  if (!S || S->getNumOperands() <= Elt)
    return nullptr;
  auto *Old = dyn_cast<ConstantInt>(S->getOperand(Elt));
  if (!Old || Old->getBitWidth() != 32)
    return nullptr;
  SmallVector<Constant *, 12> Ops;
  for (unsigned J = 0; J < S->getNumOperands(); ++J)
    Ops.push_back(S->getOperand(J));
  Ops[Elt] =
      ConstantInt::get(Old->getType(), Old->getZExtValue() | (1u << Bit));
  return ConstantStruct::get(S->getType(), Ops);
}

/// Sets the bound bit of the loop's descriptor: an alias of one element of
/// the module's descriptor array (IRLoopTable).
static void setDescBoundBit(Module &M, StringRef DescName, unsigned Bit) {
  GlobalAlias *GA = M.getNamedAlias(DescName);
  auto *GEP = GA ? dyn_cast<ConstantExpr>(GA->getAliasee()) : nullptr;
  if (!GEP || GEP->getOpcode() != Instruction::GetElementPtr ||
      GEP->getNumOperands() != 3)
    return;
  auto *Arr = dyn_cast<GlobalVariable>(GEP->getOperand(0));
  auto *Idx = dyn_cast<ConstantInt>(GEP->getOperand(2));
  auto *Init = Arr && Arr->hasInitializer()
                   ? dyn_cast<ConstantArray>(Arr->getInitializer())
                   : nullptr;
  if (!Init || !Idx || Idx->getZExtValue() >= Init->getNumOperands())
    return;
  SmallVector<Constant *, 8> Elts;
  for (unsigned J = 0; J < Init->getNumOperands(); ++J)
    Elts.push_back(Init->getOperand(J));
  Constant *New =
      withBoundBit(Elts[Idx->getZExtValue()], abi_ir::DescBoundMask, Bit);
  if (!New)
    return;
  Elts[Idx->getZExtValue()] = New;
  Arr->setInitializer(ConstantArray::get(Init->getType(), Elts));
}

bool decan::writeMeta(Module &M, StringRef MetaName, Variant V,
                      VariantStatus St, unsigned Bytes,
                      const LoopSubsets *Counts, bool Bound, bool CallsDeleted,
                      decan_variant_why Why, unsigned MemoryCallBytes,
                      bool Capped) {
  GlobalVariable *GV = M.getNamedGlobal(MetaName);
  if (!GV || !GV->hasInitializer())
    return false;
  auto *Init = dyn_cast<ConstantStruct>(GV->getInitializer());
  if (!Init || Init->getNumOperands() <= abi_ir::MetaMInfo)
    return false;
  Constant *Old = Init->getOperand(abi_ir::MetaMInfo);
  auto *ArrTy = dyn_cast<ArrayType>(Old->getType());
  if (!ArrTy || ArrTy->getNumElements() != abi_ir::MInfoWords)
    return false;
  std::array<uint32_t, abi_ir::MInfoWords> Vals{};
  for (unsigned J = 0; J < abi_ir::MInfoWords; ++J)
    if (auto *CI = dyn_cast_or_null<ConstantInt>(Old->getAggregateElement(J)))
      Vals[J] = CI->getZExtValue();
  unsigned VI = static_cast<unsigned>(V);
  Vals[abi_ir::MInfoStatus + VI] = static_cast<uint32_t>(St);
  Vals[abi_ir::MInfoLoopBytes + VI] = Bytes;
  Vals[abi_ir::MInfoWhy + VI] = St == VariantStatus::OK ? DECAN_WHY_NONE
                                : Why == DECAN_WHY_NONE ? DECAN_WHY_OTHER
                                                        : Why;
  uint32_t *Count = &Vals[abi_ir::MInfoCounts];
  bool CountsUnset = std::all_of(Count, Count + abi_ir::MInfoNumCounts,
                                 [](uint32_t C) { return C == 0; });
  if (Counts && (V == Variant::REF || CountsUnset)) {
    // In decan_machine_info order: n_instrs, n_load, ..., n_other.
    for (uint32_t N :
         {Counts->NumInstrs, Counts->NumLoad, Counts->NumStore, Counts->NumFP,
          Counts->NumDiv, Counts->NumCtrl, Counts->NumAddr, Counts->NumOther})
      *Count++ = N;
    Vals[abi_ir::MInfoNCall] = Counts->NumCall;
    Vals[abi_ir::MInfoNChasedLoad] = Counts->NumChasedLoad;
    // The groups, as the rewriter records them (names packed in words).
    decan_machine_info MI;
    std::memcpy(&MI, Vals.data(), sizeof(MI));
    recordGroups(*Counts, MI);
    std::memcpy(Vals.data(), &MI, sizeof(MI));
  }
  if (CallsDeleted)
    Vals[abi_ir::MInfoCallsDeleted] |= 1u << VI;
  if (Capped)
    Vals[abi_ir::MInfoCappedMask] |= 1u << VI;
  if (V == Variant::DL1)
    Vals[abi_ir::MInfoDL1MemoryCallBytes] = MemoryCallBytes;
  SmallVector<Constant *, 10> Ops;
  for (unsigned J = 0; J < Init->getNumOperands(); ++J)
    Ops.push_back(Init->getOperand(J));
  Ops[abi_ir::MetaMInfo] =
      ConstantDataArray::get(M.getContext(), ArrayRef<uint32_t>(Vals));
  GV->setInitializer(ConstantStruct::get(Init->getType(), Ops));
  if (Bound) {
    if (Constant *New =
            withBoundBit(GV->getInitializer(), abi_ir::MetaBoundMask, VI))
      GV->setInitializer(New);
    if (MetaName.consume_back(".meta"))
      setDescBoundBit(M, (MetaName + ".desc").str(), VI);
  }
  return true;
}
