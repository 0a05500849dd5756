//===- MachinePasses.cpp - decan machine passes: registration -------------===//
//
// Part of decan. The variant rules run after every X86 pre-emit pass that
// may still change instructions (EVEX->VEX compression, LEA/byte-word
// fixups, vzeroupper insertion, execution-domain and false-dependence
// fixes): TargetPassConfig adds FuncletLayout right after addPreEmitPass(),
// in every optimization level, so inserting after it puts the rules just
// before the pre-emit-2 passes (CFI, thunks), which leave loop bodies alone.
//
//===----------------------------------------------------------------------===//

#include "MachineCopyFromRef.h"
#include "MachineVariants.h"
#include "Passes.h"

#include "llvm/CodeGen/Passes.h"
#include "llvm/CodeGen/TargetPassConfig.h"
#include "llvm/PassRegistry.h"

void decan::addMachinePasses(llvm::TargetPassConfig &TPC) {
  // Copies that are REF's IR get REF's machine code (MachineCopyFromRef.h):
  // their IR is emptied before instruction selection, right after the
  // first codegen IR pass that X86 adds at every optimization level.
  TPC.insertPass(&llvm::AtomicExpandID, &decan::VariantBodyFromRefID);
  TPC.insertPass(&llvm::FuncletLayoutID, &decan::MachineCopyFromRefID);
  TPC.insertPass(&llvm::FuncletLayoutID, &decan::MachineVariantsID);
}

void decan::initializeMachinePasses(llvm::PassRegistry &Registry) {
  llvm::initializeVariantBodyFromRefPass(Registry);
  llvm::initializeMachineCopyFromRefPass(Registry);
  llvm::initializeMachineVariantsPass(Registry);
}
