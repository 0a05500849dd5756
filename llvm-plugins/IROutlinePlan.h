//===- IROutlinePlan.h - decan: what outlining knows of one loop -*- C++
//-*-===//
//
// Part of decan. Internal to the outline pass: the plan of one selected loop
// (IROutline.cpp records it) and the steps that share it across files -- the
// dispatch stub and measure function are built in IRStub.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_LLVM_PLUGINS_IROUTLINEPLAN_H
#define DECAN_LLVM_PLUGINS_IROUTLINEPLAN_H

#include "IRLoopTable.h"

#include "llvm/ADT/APInt.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Attributes.h"
#include <optional>
#include <string>

namespace llvm {
class BasicBlock;
class DominatorTree;
class LoopInfo;
class ScalarEvolution;
class Constant;
class Function;
class Loop;
class PHINode;
class StructType;
class Value;
} // namespace llvm

namespace decan {

/// Everything the outliner and the stub need about one selected loop.
struct OutlinePlan {
  llvm::Loop *L;
  LoopRecord Rec;
  llvm::BasicBlock *Preheader, *Header;
  llvm::SmallVector<llvm::BasicBlock *, 8> Blocks; ///< function layout order
  llvm::SmallVector<llvm::BasicBlock *, 4> Exits;  ///< function layout order
  llvm::SmallVector<llvm::Value *, 8> LiveIns;
  /// Every PHI of every exit block.
  llvm::SmallVector<llvm::PHINode *, 8> LiveOuts;
  llvm::PHINode *IV = nullptr;   ///< affine header PHI, if any
  llvm::Value *IVNext = nullptr; ///< its value on the backedge
  llvm::APInt Step;
  /// Exiting blocks where IVNext is already computed: the trip count uses
  /// it there (a live-out anyway), not the header PHI, whose value would
  /// need a register copy inside the loop.
  llvm::SmallPtrSet<llvm::BasicBlock *, 4> ExitsAfterIncrement;
  bool multiExit() const { return Exits.size() > 1; }
};

/// Step 3: records what outlining needs of \p L, already in simplified and
/// LCSSA form, into \p P; a skip reason when it is not in that form
/// (IROutline.cpp).
std::optional<std::string> planLoop(llvm::Function &F, llvm::Loop *L,
                                    llvm::DominatorTree &DT, llvm::LoopInfo &LI,
                                    llvm::ScalarEvolution &SE, OutlinePlan &P);

/// Function attributes the outlined copy inherits from \p F: target and
/// code-generation settings, so its loop compiles like the original.
llvm::AttributeList outlinedAttrs(const llvm::Function &F);

/// Step 5: the dispatch stub in the preheader of the original loop, and the
/// cold measure function it calls (IRStub.cpp).
void insertStub(llvm::Function &F, OutlinePlan &P, llvm::Constant *Desc,
                llvm::StructType *DescTy,
                llvm::ArrayRef<llvm::Function *> Variants);

} // namespace decan

#endif // DECAN_LLVM_PLUGINS_IROUTLINEPLAN_H
