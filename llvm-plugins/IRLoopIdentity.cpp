//===- IRLoopIdentity.cpp - decan: a loop's identity across builds --------===//
//
// Part of decan. See IRLoopIdentity.h.
//
//===----------------------------------------------------------------------===//

#include "IRLoopIdentity.h"
#include "IRTuneCandidates.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

#include <algorithm>

using namespace llvm;

namespace decan {

/// The name a loop's origin function goes by: the subprogram's linkage name
/// (C++), else its name.
static StringRef originName(const DILocation &DL) {
  const DISubprogram *SP = DL.getScope()->getSubprogram();
  if (!SP)
    return "";
  return SP->getLinkageName().empty() ? SP->getName() : SP->getLinkageName();
}

static std::string position(const DILocation &DL) {
  return DL.getFilename().str() + ":" + std::to_string(DL.getLine()) + ":" +
         std::to_string(DL.getColumn());
}

DebugLoc loopStartLoc(const Loop &L) {
  if (MDNode *ID = L.getLoopID())
    for (const MDOperand &Op : drop_begin(ID->operands()))
      if (auto *DL = dyn_cast<DILocation>(Op))
        return DebugLoc(DL);
  if (const BasicBlock *Latch = L.getLoopLatch())
    if (const DebugLoc &DL = Latch->getTerminator()->getDebugLoc();
        DL && DL.getLine())
      return DL;
  return L.getStartLoc();
}

SmallVector<const DILocation *, 16> moduleLoopStarts(Module &M) {
  SmallVector<const DILocation *, 16> Starts;
  for (Function &F : M) {
    if (F.isDeclaration())
      continue;
    DominatorTree DT(F);
    LoopInfo LI(DT);
    for (Loop *L : LI.getLoopsInPreorder())
      if (DebugLoc D = loopStartLoc(*L); D && D->getLine())
        Starts.push_back(D.get());
  }
  return Starts;
}

std::string loopSourceIdentity(const Loop *L, const DebugLoc &Loc) {
  const DILocation *DL = Loc.get();
  if (!DL || DL->getLine() == 0)
    return "";
  std::string Key = originName(*DL).str() + "|" + position(*DL) + "|";
  // The enclosing loops, outermost first: a loop at the same line:col in
  // another nest is another loop.
  SmallVector<std::string, 4> Nest;
  for (const Loop *P = L ? L->getParentLoop() : nullptr; P;
       P = P->getParentLoop())
    if (const DILocation *PL = loopStartLoc(*P).get())
      Nest.push_back(std::to_string(PL->getLine()) + ":" +
                     std::to_string(PL->getColumn()));
  std::reverse(Nest.begin(), Nest.end());
  for (auto [I, N] : enumerate(Nest))
    Key += (I ? "/" : "") + N;
  Key += "|";
  // The call sites the loop was inlined through, innermost first, each with
  // the function that makes the call.
  bool First = true;
  for (const DILocation *At = DL->getInlinedAt(); At;
       At = At->getInlinedAt(), First = false)
    Key += (First ? "" : "<") + originName(*At).str() + "@" + position(*At);
  return Key;
}

unsigned loopIterationStep(const Loop &L, ScalarEvolution &SE) {
  uint64_t Best = 0;
  for (PHINode &Phi : L.getHeader()->phis()) {
    if (!Phi.getType()->isIntegerTy() || !SE.isSCEVable(Phi.getType()))
      continue;
    const auto *AR = dyn_cast<SCEVAddRecExpr>(SE.getSCEV(&Phi));
    if (!AR || AR->getLoop() != &L || !AR->isAffine())
      continue;
    const auto *Step = dyn_cast<SCEVConstant>(AR->getStepRecurrence(SE));
    if (!Step || Step->getAPInt().isZero() ||
        Step->getAPInt().getSignificantBits() > 32)
      continue;
    uint64_t S = Step->getAPInt().abs().getZExtValue();
    if (!Best || S < Best)
      Best = S;
  }
  // An unroll-and-jam candidate's inner loop also runs the jammed
  // iterations of its enclosing loop.
  return (unsigned)Best * jammedBodies(L);
}

std::string sourceName(Value *V) {
  for (Value *W : {V, const_cast<Value *>(getUnderlyingObject(V))}) {
    if (auto *GV = dyn_cast<GlobalVariable>(W))
      return GV->getName().str();
    for (DbgVariableRecord *R : findDVRValues(W))
      if (DILocalVariable *Var = R->getVariable())
        return Var->getName().str();
    for (DbgVariableRecord *R : findDVRDeclares(W))
      if (DILocalVariable *Var = R->getVariable())
        return Var->getName().str();
  }
  return "";
}

} // namespace decan
