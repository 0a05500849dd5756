//===- IRPasses.cpp - decan IR passes: registration -----------------------===//
#include "Passes.h"

#include "llvm/Passes/PassBuilder.h"

void decan::registerIRPasses(llvm::PassBuilder &PB) {}
