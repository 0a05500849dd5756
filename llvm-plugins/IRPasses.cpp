//===- IRPasses.cpp - decan IR passes: registration -----------------------===//
//
// Part of decan. The IR side runs once, at the end of the optimization
// pipeline (loops are vectorized and unrolled as in a normal build), and is
// available to `opt -passes=decan-outline` for tests.
//
//===----------------------------------------------------------------------===//

#include "IROutline.h"
#include "IRRegions.h"
#include "IRSelection.h"
#include "IRTripCounts.h"
#include "IRTune.h"
#include "Passes.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"

using namespace llvm;

static cl::opt<bool> LtoLink(
    "decan-lto-link",
    cl::desc("the link loads decan.so (decan flags --lto): pre-link LTO "
             "modules are instrumented there, without a warning here"),
    cl::init(false));

namespace {
/// A pre-link LTO module is instrumented only if the linker loads the
/// plugin too (clang does not pass -fpass-plugin on to it): say so once
/// per module that has loops, unless the flags say the link loads it.
struct LtoPrelinkNoticePass : PassInfoMixin<LtoPrelinkNoticePass> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &MAM) {
    if (LtoLink || decan::isDecanDisabled())
      return PreservedAnalyses::all();
    FunctionAnalysisManager &FAM =
        MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
    unsigned Loops = 0;
    for (Function &F : M)
      if (!F.isDeclaration() && !F.hasOptNone())
        for (Loop *L : FAM.getResult<LoopAnalysis>(F).getLoopsInPreorder())
          Loops += L->isInnermost();
    if (Loops)
      M.getContext().diagnose(DiagnosticInfoGeneric(
          "decan: -flto: " + Twine(Loops) +
              (Loops == 1 ? " loop is" : " loops are") +
              " instrumented at link time only if the linker loads the "
              "plugin: link with $(decan flags --lto --libs) (lld), or "
              "build without -flto",
          DS_Warning));
    return PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};
} // namespace

/// What instruments a module's final code: the tuning check, the copies,
/// the regions.
static void addInstrumentingPasses(ModulePassManager &MPM) {
  if (decan::tuneGiven())
    MPM.addPass(decan::TuneVerifyPass());
  MPM.addPass(decan::OutlinePass());
  MPM.addPass(decan::RegionPass());
}

void decan::registerIRPasses(PassBuilder &PB) {
  PB.registerOptimizerLastEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel, ThinOrFullLTOPhase Phase) {
        // Pre-link LTO modules are optimized again at link time, where the
        // plugin is not loaded by default: instrument only final code.
        if (Phase == ThinOrFullLTOPhase::ThinLTOPreLink ||
            Phase == ThinOrFullLTOPhase::FullLTOPreLink) {
          MPM.addPass(LtoPrelinkNoticePass());
          return;
        }
        addInstrumentingPasses(MPM);
      });
  // Full LTO's link-time pipeline has no OptimizerLast step: the loops
  // are instrumented at its end instead (ThinLTO's backends have one).
  PB.registerFullLinkTimeOptimizationLastEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel) {
        addInstrumentingPasses(MPM);
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
