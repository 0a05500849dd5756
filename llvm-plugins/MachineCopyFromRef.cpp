//===- MachineCopyFromRef.cpp - Variant copies from REF's machine code ---===//
//
// Part of decan. See MachineCopyFromRef.h.
//
//===----------------------------------------------------------------------===//

#include "MachineCopyFromRef.h"
#include "IRIterationCap.h"
#include "MachineFunctionClone.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/MachineFunctionPass.h"
#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/InitializePasses.h"
#include "llvm/Pass.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ErrorHandling.h"

#include <memory>

using namespace llvm;
using namespace decan;

static cl::opt<bool> CopiesFromRef(
    "decan-copies-from-ref", cl::init(true), cl::Hidden,
    cl::desc("Give each uncapped variant copy REF's machine code instead of "
             "compiling its IR again (default on)"));

/// Attribute of a copy whose body the IR pass emptied.
static constexpr const char *FromRefAttr = "decan-from-ref";

/// The copies of a loop with the same IR: REF and the uncapped copies, or
/// the capped copies (IRIterationCap.h: the same cap in each); "" for any
/// other function.
static std::string sameIRGroup(const Function &F) {
  Attribute Loop = F.getFnAttribute("decan-loop");
  if (!F.hasFnAttribute("decan-variant") || !Loop.isValid() ||
      F.isDeclaration())
    return "";
  return (Loop.getValueAsString() +
          (F.hasFnAttribute(CappedAttr) ? " capped" : ""))
      .str();
}

namespace {
/// Per group of copies with the same IR, in the module codegen works on
/// (one per thread: parallel LTO backends): the first in module order,
/// compiled from its IR, and its machine function, kept for the others.
struct SameIRGroups {
  struct Group {
    const Function *First = nullptr;
    unsigned Others = 0;
    std::unique_ptr<MachineFunction> Kept;
  };
  const Module *M = nullptr;
  StringMap<Group> ByName;

  static SameIRGroups &of(const Module &Mod) {
    thread_local SameIRGroups Groups;
    if (Groups.M != &Mod) {
      Groups.clear();
      Groups.M = &Mod;
      for (const Function &F : Mod)
        if (std::string Name = sameIRGroup(F); !Name.empty()) {
          Group &G = Groups.ByName[Name];
          if (G.First)
            ++G.Others;
          else
            G.First = &F;
        }
    }
    return Groups;
  }
  void clear() {
    M = nullptr;
    ByName.clear();
  }
};

class VariantBodyFromRef : public FunctionPass {
public:
  static char ID;
  VariantBodyFromRef() : FunctionPass(ID) {}
  StringRef getPassName() const override {
    return "decan variant body from REF";
  }

  bool runOnFunction(Function &F) override {
    if (!CopiesFromRef)
      return false;
    std::string Name = sameIRGroup(F);
    if (Name.empty())
      return false;
    SameIRGroups &Groups = SameIRGroups::of(*F.getParent());
    auto It = Groups.ByName.find(Name);
    if (It == Groups.ByName.end() || !It->second.Kept)
      return false;
    // Nothing for instruction selection and register allocation to do.
    for (BasicBlock &BB : F)
      BB.dropAllReferences();
    while (!F.empty())
      F.back().eraseFromParent();
    LLVMContext &Ctx = F.getContext();
    new UnreachableInst(Ctx, BasicBlock::Create(Ctx, "", &F));
    F.addFnAttr(FromRefAttr);
    return true;
  }
};

class MachineCopyFromRef : public MachineFunctionPass {
public:
  static char ID;
  MachineCopyFromRef() : MachineFunctionPass(ID) {}
  StringRef getPassName() const override {
    return "decan variant copy from REF";
  }

  // Preserves nothing where it replaces a function: every block is new.
  bool runOnMachineFunction(MachineFunction &MF) override;

  bool doFinalization(Module &M) override {
    SameIRGroups::of(M).clear();
    return false;
  }
};
} // namespace

bool MachineCopyFromRef::runOnMachineFunction(MachineFunction &MF) {
  const Function &F = MF.getFunction();
  if (!CopiesFromRef)
    return false;
  std::string Name = sameIRGroup(F);
  if (Name.empty())
    return false;
  SameIRGroups::Group &G = SameIRGroups::of(*F.getParent()).ByName[Name];
  if (G.First == &F) {
    if (!G.Others || !canCloneMachineFunction(MF))
      return false;
    // The function is freed after AsmPrinter: keep a copy, as it is
    // before the variant rules change it.
    G.Kept = std::make_unique<MachineFunction>(
        const_cast<Function &>(F), MF.getTarget(), MF.getSubtarget(),
        MF.getContext(), MF.getFunctionNumber());
    cloneMachineFunction(MF, *G.Kept);
    return false;
  }
  if (!F.hasFnAttribute(FromRefAttr))
    return false;
  if (!G.Kept)
    report_fatal_error("decan: no machine code kept for " + F.getName());
  MF.reset();
  cloneMachineFunction(*G.Kept, MF);
  if (--G.Others == 0)
    G.Kept.reset();
  return true;
}

char VariantBodyFromRef::ID = 0;
char &decan::VariantBodyFromRefID = VariantBodyFromRef::ID;
char MachineCopyFromRef::ID = 0;
char &decan::MachineCopyFromRefID = MachineCopyFromRef::ID;

INITIALIZE_PASS(VariantBodyFromRef, "decan-variant-body-from-ref",
                "decan variant body from REF", false, false)
INITIALIZE_PASS(MachineCopyFromRef, "decan-copy-from-ref",
                "decan variant copy from REF", false, false)

FunctionPass *decan::createVariantBodyFromRefPass() {
  return new VariantBodyFromRef();
}
FunctionPass *decan::createMachineCopyFromRefPass() {
  return new MachineCopyFromRef();
}
