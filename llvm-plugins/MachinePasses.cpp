//===- MachinePasses.cpp - decan machine passes: registration -------------===//
#include "Passes.h"

#include "llvm/CodeGen/TargetPassConfig.h"
#include "llvm/PassRegistry.h"

void decan::addMachinePasses(llvm::TargetPassConfig &TPC) {}
void decan::initializeMachinePasses(llvm::PassRegistry &Registry) {}
