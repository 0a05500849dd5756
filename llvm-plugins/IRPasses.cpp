//===- IRPasses.cpp - decan IR passes: registration -----------------------===//
//
// Part of decan. The IR side runs once, at the end of the optimization
// pipeline (loops are vectorized and unrolled as in a normal build), and is
// available to `opt -passes=decan-outline` for tests.
//
//===----------------------------------------------------------------------===//

#include "IROutline.h"
#include "IRRegions.h"
#include "IRTripCounts.h"
#include "IRTune.h"
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
        if (decan::tuneGiven())
          MPM.addPass(decan::TuneVerifyPass());
        MPM.addPass(decan::OutlinePass());
        MPM.addPass(decan::RegionPass());
      });
  // Measured trip counts (decan flags --apply) reach the loops before the
  // vectoriser and the unroller plan for them.
  PB.registerVectorizerStartEPCallback(
      [](FunctionPassManager &FPM, OptimizationLevel) {
        if (decan::tripCountsGiven())
          FPM.addPass(decan::ApplyTripCountsPass());
        if (decan::loopHintsGiven())
          FPM.addPass(decan::ApplyLoopHintsPass());
      });
  // Tuned positions are checked against the loops as written.
  PB.registerPipelineStartEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel) {
        if (decan::loopHintsGiven())
          MPM.addPass(decan::TunePositionsCheckPass());
      });
  // Tuned loops are extracted and copied per candidate once inlining and
  // SROA made them what the build's loops are, before the vectoriser.
  PB.registerOptimizerEarlyEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel, ThinOrFullLTOPhase Phase) {
        // As for outlining: only final code gets copies to measure.
        if (decan::tuneGiven() && Phase != ThinOrFullLTOPhase::ThinLTOPreLink &&
            Phase != ThinOrFullLTOPhase::FullLTOPreLink)
          MPM.addPass(decan::TuneCandidatesPass());
      });
  PB.registerPipelineParsingCallback(
      [](StringRef Name, FunctionPassManager &FPM,
         ArrayRef<PassBuilder::PipelineElement>) {
        if (Name != "decan-apply-trip-counts")
          return false;
        FPM.addPass(decan::ApplyTripCountsPass());
        return true;
      });
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM,
         ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "decan-outline")
          MPM.addPass(decan::OutlinePass());
        else if (Name == "decan-regions")
          MPM.addPass(decan::RegionPass());
        else if (Name == "decan-tune-verify")
          MPM.addPass(decan::TuneVerifyPass());
        else
          return false;
        return true;
      });
}
