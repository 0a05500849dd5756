//===- Plugin.cpp - Entry points of decan.so ------------------------------===//
//
// Part of decan. `clang-22 -fpass-plugin=decan.so` calls
// llvmGetPassPluginInfo(); loading the library (also through
// `-Xclang -load`) registers the machine passes with every TargetPassConfig.
//
//===----------------------------------------------------------------------===//

#include "Passes.h"

#include "llvm/CodeGen/Passes.h"
#include "llvm/CodeGen/TargetPassConfig.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Plugins/PassPlugin.h"
#include "llvm/Target/RegisterTargetPassConfigCallback.h"

using namespace llvm;

namespace {
// Post-RA, after the prologue/epilogue are final: nothing re-optimizes what
// decan's machine passes see or change.
[[maybe_unused]] RegisterTargetPassConfigCallback InsertMachinePasses{
    [](TargetMachine &TM, PassManagerBase &PM, TargetPassConfig *TPC) {
      if (!TM.getTargetTriple().isX86() || !TM.getTargetTriple().isArch64Bit())
        return;
      TPC->insertPass(&PrologEpilogCodeInserterID, &decan::MachineLoopReportID);
      decan::addMachinePasses(*TPC);
    }};
} // namespace

__attribute__((constructor)) static void initDecanMachinePasses() {
  initializeMachineLoopReportPass(*PassRegistry::getPassRegistry());
  decan::initializeMachinePasses(*PassRegistry::getPassRegistry());
}

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "decan", DECAN_PLUGIN_VERSION,
          [](PassBuilder &PB) { decan::registerIRPasses(PB); }};
}
