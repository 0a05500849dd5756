//===- IRPasses.cpp - decan IR passes: registration -----------------------===//
//
// Part of decan. The IR side runs once, at the end of the optimization
// pipeline (loops are vectorized and unrolled as in a normal build), and is
// available to `opt -passes=decan-outline` for tests.
//
//===----------------------------------------------------------------------===//

#include "IROutline.h"
#include "IRRegions.h"
#include "Passes.h"

#include "llvm/Passes/PassBuilder.h"

using namespace llvm;

void decan::registerIRPasses(PassBuilder &PB) {
  PB.registerOptimizerLastEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel, ThinOrFullLTOPhase Phase) {
        // Pre-link LTO modules are optimized again at link time, where the
        // plugin is not loaded by default: instrument only final code.
        if (Phase == ThinOrFullLTOPhase::ThinLTOPreLink ||
            Phase == ThinOrFullLTOPhase::FullLTOPreLink)
          return;
        MPM.addPass(decan::OutlinePass());
        MPM.addPass(decan::RegionPass());
      });
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM,
         ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "decan-outline")
          MPM.addPass(decan::OutlinePass());
        else if (Name == "decan-regions")
          MPM.addPass(decan::RegionPass());
        else
          return false;
        return true;
      });
}
