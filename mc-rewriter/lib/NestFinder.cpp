//===- NestFinder.cpp - 2-level loop nests of a prebuilt binary -----------===//
//
// Part of decan. See NestFinder.h.
//
//===----------------------------------------------------------------------===//

#include "decan/Rewriter/NestFinder.h"

#include "llvm/ADT/STLExtras.h"

#include <map>
#include <set>

using namespace llvm;
using namespace decan::rewriter;

std::vector<LoopCandidate> decan::rewriter::numberNests(
    std::vector<LoopCandidate> Cands,
    function_ref<bool(unsigned InnerIndex)> Rewritable) {
  std::vector<LoopCandidate> Out;
  for (LoopCandidate &C : Cands)
    if (C.Nest && !C.InnerIndices.empty() && all_of(C.InnerIndices, Rewritable))
      Out.push_back(std::move(C));
  llvm::sort(Out, [](const LoopCandidate &A, const LoopCandidate &B) {
    return A.Header < B.Header;
  });
  for (unsigned K = 0; K < Out.size(); ++K)
    Out[K].Index = K;
  return Out;
}

std::vector<LoopCandidate>
decan::rewriter::findNests(const BinaryImage &Bin, const decan::X86Target &X86,
                           const std::vector<LoopCandidate> &Loops,
                           bool WithLines) {
  // The rewritable innermost loops, by function start.
  std::map<uint64_t, std::set<unsigned>> Rewritable;
  for (const LoopCandidate &L : Loops)
    if (!L.Nest) {
      std::set<unsigned> &Fn = Rewritable[L.FunctionStart];
      if (L.SkipReason.empty())
        Fn.insert(L.Index);
    }
  std::vector<LoopCandidate> Out;
  for (const FunctionRange &F : Bin.functions()) {
    auto It = Rewritable.find(F.Start);
    if (It == Rewritable.end() || It->second.empty())
      continue;
    const std::set<unsigned> &Inner = It->second;
    for (LoopCandidate &N :
         numberNests(outerLoopCandidates(Bin, X86, F),
                     [&](unsigned Index) { return Inner.count(Index) != 0; }))
      Out.push_back(std::move(N));
  }
  if (WithLines)
    for (LoopCandidate &N : Out) {
      findLine(Bin, N);
      findRegisterNames(Bin, X86, N);
    }
  return Out;
}

std::map<std::string, std::vector<std::string>>
decan::rewriter::nestRelatedIds(const std::vector<LoopCandidate> &Loops) {
  std::map<std::string, std::vector<std::string>> Related;
  for (const LoopCandidate &L : Loops)
    for (unsigned Inner : L.InnerIndices) {
      std::string InnerId = L.Function + ":L" + std::to_string(Inner);
      Related[L.id()].push_back(InnerId);
      Related[InnerId].push_back(L.id());
    }
  return Related;
}
