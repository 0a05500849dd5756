//===- IRLoopTable.cpp - decan loop tables: meta records, descriptors -----===//
//
// Part of decan. See IRLoopTable.h.
//
//===----------------------------------------------------------------------===//

#include "IRLoopTable.h"

#include "decan/InstrKnowledge/Variants.h"
#include "decan/abi.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalAlias.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Path.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <array>
#include <cstddef>

using namespace llvm;
using namespace decan;

std::string decan::sourcePath(StringRef Directory, StringRef File) {
  if (File.empty() || Directory.empty() || sys::path::is_absolute(File))
    return File.str();
  SmallString<256> Path(Directory);
  sys::path::append(Path, File);
  sys::path::remove_dots(Path, /*remove_dot_dot=*/true);
  return std::string(Path);
}

void decan::setRecordLocation(LoopRecord &R, const DebugLoc &DL) {
  if (!DL)
    return;
  R.File = sourcePath(DL->getDirectory(), DL->getFilename());
  R.Line = DL.getLine();
  R.Column = DL.getCol();
}

// The IR types below mirror abi.h; keep them in step.
static_assert(sizeof(decan_meta_record) == 8 * 4 + abi_ir::MInfoWords * 4,
              "meta header layout");
static_assert(offsetof(decan_meta_record, bound_mask) ==
                  abi_ir::MetaBoundMask * 4,
              "meta bound_mask element");
static_assert(offsetof(decan_meta_record, minfo) == abi_ir::MetaMInfo * 4,
              "meta minfo element");
static_assert(sizeof(decan_machine_info) == abi_ir::MInfoWords * 4 &&
                  offsetof(decan_machine_info, n_other) / 4 + 1 ==
                      abi_ir::MInfoCounts + abi_ir::MInfoNumCounts,
              "machine info layout");
static_assert(sizeof(decan_loop_desc) == 104 &&
                  offsetof(decan_loop_desc, flags) == 80 &&
                  offsetof(decan_loop_desc, iteration_cap) == 96 &&
                  abi_ir::DescIterationCap == 17,
              "descriptor layout");
static_assert(offsetof(decan_loop_desc, active) == 4 && abi_ir::DescActive == 1,
              "active field (element 1 of DescTy)");
static_assert(offsetof(decan_loop_desc, countdown) == 8 &&
                  abi_ir::DescCountdown == 2,
              "countdown field (element 2 of DescTy)");
static_assert(offsetof(decan_loop_desc, bound_mask) == 60 &&
                  abi_ir::DescBoundMask == 11,
              "descriptor bound_mask element (element 11 of DescTy)");

LoopTableBuilder::LoopTableBuilder(Module &M) : M(M) {
  LLVMContext &Ctx = M.getContext();
  Type *I32 = Type::getInt32Ty(Ctx);
  Type *Ptr = PointerType::getUnqual(Ctx);
  DescTy = StructType::getTypeByName(Ctx, "decan.loop_desc");
  if (!DescTy)
    DescTy = StructType::create(Ctx,
                                {I32, I32, I32, I32, I32, I32, Ptr, Ptr, Ptr,
                                 Ptr, I32, I32, Ptr, Ptr, I32, I32, Ptr,
                                 Type::getInt64Ty(Ctx)},
                                "decan.loop_desc");
}

Constant *LoopTableBuilder::addLoop(const LoopRecord &R, Comdat *C) {
  NumOptNone += R.SkipReason == OptNoneSkipReason;
  LLVMContext &Ctx = M.getContext();
  Type *I32 = Type::getInt32Ty(Ctx);
  Type *I8 = Type::getInt8Ty(Ctx);
  auto C32 = [&](uint64_t V) { return ConstantInt::get(I32, V); };

  // Strings: id, function, file, reason, source identity, iteration step;
  // each NUL-terminated, then padding
  // so the record size is a multiple of 8 (records sit back to back).
  std::string Id = R.id();
  std::string Strings;
  unsigned IdOff = Strings.size();
  Strings += Id;
  Strings.push_back('\0');
  unsigned FnOff = Strings.size();
  Strings += R.Function;
  Strings.push_back('\0');
  unsigned FileOff = Strings.size();
  Strings += R.File;
  Strings.push_back('\0');
  Strings += R.SkipReason;
  Strings.push_back('\0');
  unsigned SourceOff = Strings.size();
  Strings += R.Source;
  Strings.push_back('\0');
  Strings += std::to_string(R.IterationStep);
  Strings.push_back('\0');
  unsigned StringsSize = Strings.size();
  Strings.resize(alignTo(Strings.size(), 8), '\0');
  unsigned RecordSize = sizeof(decan_meta_record) + Strings.size();

  // The producer's record of what each variant does to stores; the machine
  // pass fills the rest of decan_machine_info.
  std::array<uint32_t, abi_ir::MInfoWords> MInfo{};
  for (unsigned V = 0; V < NumVariants; ++V)
    MInfo[abi_ir::MInfoStorePolicy + V] = storePolicy(static_cast<Variant>(V));
  ArrayType *MinfoTy = ArrayType::get(I32, abi_ir::MInfoWords);
  ArrayType *StrTy = ArrayType::get(I8, Strings.size());
  StructType *MetaTy =
      StructType::get(Ctx, {ArrayType::get(I8, 4), I32, I32, I32, I32, I32, I32,
                            I32, MinfoTy, StrTy});
  Constant *MetaInit = ConstantStruct::get(
      MetaTy, {ConstantDataArray::getString(Ctx, "DCN1", /*AddNull=*/false),
               C32(RecordSize), C32(DECAN_ABI_VERSION), C32(R.VariantMask),
               C32(R.Line), C32(R.Column), C32(StringsSize), C32(0),
               ConstantDataArray::get(Ctx, ArrayRef<uint32_t>(MInfo)),
               ConstantDataArray::getString(Ctx, Strings, /*AddNull=*/false)});
  auto *Meta = new GlobalVariable(M, MetaTy, /*isConstant=*/true,
                                  GlobalValue::InternalLinkage, MetaInit,
                                  R.symbol("meta"));
  Meta->setSection(".decan.meta");
  Meta->setAlignment(Align(8));
  Meta->setComdat(C);
  Used.push_back(Meta);

  if (R.VariantMask == 0)
    return nullptr;

  // Regions run REF only: no scratch area.
  Constant *Null = ConstantPointerNull::get(PointerType::getUnqual(Ctx));
  Constant *Scratch = Null;
  if (!R.Region) {
    auto *S = new GlobalVariable(
        M, ArrayType::get(I8, ScratchBytes), /*isConstant=*/false,
        GlobalValue::InternalLinkage,
        ConstantAggregateZero::get(ArrayType::get(I8, ScratchBytes)),
        R.symbol("scratch"));
    S->setAlignment(Align(64));
    S->setComdat(C);
    Used.push_back(S);
    Scratch = S;
  }

  // The descriptor's strings point into the meta record: no duplicates.
  auto StrPtr = [&](unsigned Off) {
    return ConstantExpr::getInBoundsGetElementPtr(
        MetaTy, Meta,
        ArrayRef<Constant *>{C32(0), C32(abi_ir::MetaStrings), C32(Off)});
  };
  Constant *Minfo = ConstantExpr::getInBoundsGetElementPtr(
      MetaTy, Meta, ArrayRef<Constant *>{C32(0), C32(abi_ir::MetaMInfo)});
  Constant *Init = ConstantStruct::get(
      DescTy, {C32(DECAN_ABI_VERSION), C32(0), C32(0), C32(R.VariantMask),
               C32(R.Line), C32(R.IterationStep), StrPtr(IdOff), StrPtr(FnOff),
               StrPtr(FileOff), Scratch, C32(R.Region ? 0 : ScratchBytes),
               C32(0), Minfo, R.Source.empty() ? Null : StrPtr(SourceOff),
               C32((R.Region ? DECAN_DESC_REGION
                    : R.Nest ? DECAN_DESC_NEST
                             : 0) |
                   (R.Recursive ? DECAN_DESC_RECURSIVE : 0)),
               C32(0), Null, ConstantInt::get(Type::getInt64Ty(Ctx), 0)});
  // Placeholder until finalize() knows how many descriptors the array has.
  auto *Placeholder =
      new GlobalVariable(M, DescTy, false, GlobalValue::InternalLinkage,
                         nullptr, R.symbol("desc.tmp"));
  Descs.push_back({Placeholder, Init, R.symbol("desc"), C});
  return Placeholder;
}

void LoopTableBuilder::emitGroup(Comdat *Group, ArrayRef<Pending> Members) {
  LLVMContext &Ctx = M.getContext();
  Type *I32 = Type::getInt32Ty(Ctx);
  Type *Ptr = PointerType::getUnqual(Ctx);
  std::string Prefix = Group ? Group->getName().str() + "." : "";
  ArrayType *ArrTy = ArrayType::get(DescTy, Members.size());
  SmallVector<Constant *, 8> Inits;
  for (const Pending &P : Members)
    Inits.push_back(P.Init);
  // One array per group: __decan_register_loops takes (descs, count).
  auto *Array = new GlobalVariable(
      M, ArrTy, false, GlobalValue::InternalLinkage,
      ConstantArray::get(ArrTy, Inits), Prefix + "decan.descs");
  Array->setSection("decan_loops");
  Array->setAlignment(Align(8));
  Array->setComdat(Group);
  Used.push_back(Array);
  for (auto [I, P] : enumerate(Members)) {
    Constant *Elt = ConstantExpr::getInBoundsGetElementPtr(
        ArrTy, Array,
        ArrayRef<Constant *>{ConstantInt::get(I32, 0),
                             ConstantInt::get(I32, I)});
    auto *Alias = GlobalAlias::create(DescTy, 0, GlobalValue::InternalLinkage,
                                      P.Name, Elt, &M);
    P.Placeholder->replaceAllUsesWith(Alias);
    P.Placeholder->eraseFromParent();
  }

  // Weak: a program built with the plugin but linked without the runtime
  // still links and runs (stubs only call the runtime when it set active).
  FunctionType *RegTy =
      FunctionType::get(Type::getVoidTy(Ctx), {Ptr, I32}, false);
  Function *Reg = M.getFunction("__decan_register_loops");
  if (!Reg)
    Reg = Function::Create(RegTy, GlobalValue::ExternalWeakLinkage,
                           "__decan_register_loops", M);
  Function *Ctor = Function::Create(
      FunctionType::get(Type::getVoidTy(Ctx), false),
      GlobalValue::InternalLinkage, Prefix + "decan.module_ctor", M);
  Ctor->addFnAttr(Attribute::NoUnwind);
  Ctor->setComdat(Group);
  BasicBlock *Entry = BasicBlock::Create(Ctx, "entry", Ctor);
  BasicBlock *Call = BasicBlock::Create(Ctx, "register", Ctor);
  BasicBlock *Done = BasicBlock::Create(Ctx, "done", Ctor);
  IRBuilder<> B(Entry);
  B.CreateCondBr(B.CreateIsNotNull(Reg), Call, Done);
  B.SetInsertPoint(Call);
  B.CreateCall(RegTy, Reg, {Array, ConstantInt::get(I32, Members.size())});
  B.CreateBr(Done);
  B.SetInsertPoint(Done);
  B.CreateRetVoid();
  appendToGlobalCtors(M, Ctor, /*Priority=*/65535,
                      Group ? groupKey(*Group) : nullptr);
}

GlobalValue *LoopTableBuilder::groupKey(Comdat &C) {
  // On ELF the .init_array entry of a keyed llvm.global_ctors element goes
  // into the section group named after the key's *symbol*. Keyed by any
  // other global (the descriptor array, say) the entry forms a group of its
  // own, kept or dropped independently of the function's group: with an
  // object where the same function is skipped or built without the plugin,
  // the linker keeps the entry but drops the constructor it points to
  // ("defined in discarded section"), depending on object order.
  if (GlobalValue *GV = M.getNamedValue(C.getName()))
    return GV; // the usual case: the function (or variable) naming it
  // Comdats named after no global, e.g. clang's C5/D5 constructor groups: a
  // local marker of that name gives the group its symbol.
  Type *I8 = Type::getInt8Ty(M.getContext());
  auto *Key = new GlobalVariable(M, I8, /*isConstant=*/true,
                                 GlobalValue::InternalLinkage,
                                 ConstantInt::get(I8, 0), C.getName());
  Key->setComdat(&C);
  Used.push_back(Key);
  return Key;
}

void LoopTableBuilder::finalize() {
  // Module-level loops first, then one group per comdat, in first-seen order.
  SmallVector<Comdat *, 8> Groups{nullptr};
  for (const Pending &P : Descs)
    if (P.Group && !is_contained(Groups, P.Group))
      Groups.push_back(P.Group);
  for (Comdat *G : Groups) {
    SmallVector<Pending, 8> Members;
    for (const Pending &P : Descs)
      if (P.Group == G)
        Members.push_back(P);
    if (!Members.empty())
      emitGroup(G, Members);
  }
  if (!Used.empty())
    appendToUsed(M, Used);
  Descs.clear();
  Used.clear();
}
