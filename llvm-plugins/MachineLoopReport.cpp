//===- MachineLoopReport.cpp - Report innermost machine loops -------------===//
//
// Part of decan. Emits one remark per innermost loop of each function, after
// register allocation, so users see what decan would measure:
//   remark: kernel.c:7:3: decan: innermost loop in 'f' (header bb.2, 12
//   instructions) [-Rpass=decan]
//
//===----------------------------------------------------------------------===//

#include "Passes.h"

#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/CodeGen/MachineFunctionPass.h"
#include "llvm/CodeGen/MachineLoopInfo.h"
#include "llvm/CodeGen/MachineOptimizationRemarkEmitter.h"
#include "llvm/InitializePasses.h"
#include "llvm/Pass.h"

using namespace llvm;

#define DEBUG_TYPE "decan"

namespace {
class MachineLoopReport : public MachineFunctionPass {
public:
  static char ID;
  MachineLoopReport() : MachineFunctionPass(ID) {}

  StringRef getPassName() const override { return "decan loop report"; }

  void getAnalysisUsage(AnalysisUsage &AU) const override {
    AU.addRequired<MachineLoopInfoWrapperPass>();
    AU.addRequired<MachineOptimizationRemarkEmitterPass>();
    AU.setPreservesAll();
    MachineFunctionPass::getAnalysisUsage(AU);
  }

  bool runOnMachineFunction(MachineFunction &MF) override {
    auto &MLI = getAnalysis<MachineLoopInfoWrapperPass>().getLI();
    auto &ORE = getAnalysis<MachineOptimizationRemarkEmitterPass>().getORE();
    SmallVector<MachineLoop *, 8> Worklist(MLI.begin(), MLI.end());
    while (!Worklist.empty()) {
      MachineLoop *L = Worklist.pop_back_val();
      if (!L->isInnermost()) {
        Worklist.append(L->begin(), L->end());
        continue;
      }
      unsigned NumInstrs = 0;
      for (MachineBasicBlock *MBB : L->blocks())
        for (MachineInstr &MI : *MBB)
          if (!MI.isMetaInstruction())
            ++NumInstrs;
      MachineBasicBlock *Header = L->getHeader();
      ORE.emit([&] {
        return MachineOptimizationRemark(DEBUG_TYPE, "InnermostLoop",
                                         L->getStartLoc(), Header)
               << "innermost loop in '" << MF.getName() << "' (header bb."
               << ore::NV("Header", Header->getNumber()) << ", "
               << ore::NV("Instructions", NumInstrs) << " instructions)";
      });
    }
    return false;
  }
};
} // namespace

char MachineLoopReport::ID = 0;
char &decan::MachineLoopReportID = MachineLoopReport::ID;

INITIALIZE_PASS_BEGIN(MachineLoopReport, "decan-loop-report",
                      "decan innermost loop report", false, true)
INITIALIZE_PASS_DEPENDENCY(MachineLoopInfoWrapperPass)
INITIALIZE_PASS_DEPENDENCY(MachineOptimizationRemarkEmitterPass)
INITIALIZE_PASS_END(MachineLoopReport, "decan-loop-report",
                    "decan innermost loop report", false, true)

FunctionPass *decan::createMachineLoopReportPass() {
  return new MachineLoopReport();
}
