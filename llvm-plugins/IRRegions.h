//===- IRRegions.h - Regions around outer loops and functions --*- C++ -*-===//
//
// Part of decan.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// With -decan-regions (`decan flags --regions`), times what the innermost
/// loops miss: every outermost loop that is not innermost (a loop nest) and
/// every function that has loops becomes a region, REF only, with a
/// descriptor (DECAN_DESC_REGION) and stubs that call the runtime only while
/// `decan run --regions` made it active: one load and a branch otherwise.
//===----------------------------------------------------------------------===//

#ifndef DECAN_LLVM_PLUGINS_IRREGIONS_H
#define DECAN_LLVM_PLUGINS_IRREGIONS_H

#include "llvm/IR/PassManager.h"

namespace decan {

/// Places region stubs (after OutlinePass, which it leaves alone).
class RegionPass : public llvm::PassInfoMixin<RegionPass> {
public:
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);
  static bool isRequired() { return true; }
};

/// True when -decan-regions was given.
bool regionsRequested();

} // namespace decan

#endif // DECAN_LLVM_PLUGINS_IRREGIONS_H
