//===- IRTripCounts.cpp - decan: measured trip counts into the next build -===//
//
// Part of decan. See IRTripCounts.h.
//
//===----------------------------------------------------------------------===//

#include "IRTripCounts.h"
#include "IRLoopIdentity.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Transforms/Utils/LoopUtils.h"

using namespace llvm;

static cl::list<std::string> DecanTripCounts(
    "decan-trip-counts", cl::CommaSeparated,
    cl::desc("Estimated trip counts of the loops at these source positions, "
             "as decan measured them (decan flags --apply REPORT.json)"),
    cl::value_desc("a.c:10:3=12,..."));

bool decan::tripCountsGiven() { return !DecanTripCounts.empty(); }

/// FILE:LINE:COL -> trip count, parsed once; bad entries are reported once
/// and ignored (the build goes on without them).
static const StringMap<unsigned> &tripCounts(LLVMContext &Ctx) {
  static StringMap<unsigned> Map;
  static bool Parsed = false;
  if (!Parsed) {
    Parsed = true;
    for (StringRef Entry : DecanTripCounts) {
      auto [Pos, N] = Entry.rsplit('=');
      unsigned Trips;
      if (Pos.empty() || N.getAsInteger(10, Trips) || !Trips) {
        Ctx.diagnose(DiagnosticInfoGeneric(
            "decan: bad -decan-trip-counts entry '" + Entry +
                "': expected FILE:LINE:COL=N, N > 0",
            DS_Warning));
        continue;
      }
      Map[Pos] = Trips;
    }
  }
  return Map;
}

/// "dir/a.c:3:5" matches "a.c:3:5" and "/abs/dir/a.c:3:5", not "xa.c:3:5".
static const unsigned *lookup(const StringMap<unsigned> &Map,
                              const DILocation &DL) {
  std::string Tail =
      ":" + std::to_string(DL.getLine()) + ":" + std::to_string(DL.getColumn());
  StringRef File = DL.getFilename();
  for (const auto &E : Map) {
    StringRef Key = E.getKey();
    if (!Key.consume_back(Tail))
      continue;
    bool Match =
        File.ends_with(Key)
            ? File.size() == Key.size() ||
                  File[File.size() - Key.size() - 1] == '/'
            : Key.ends_with(File) && (Key.size() == File.size() ||
                                      Key[Key.size() - File.size() - 1] == '/');
    if (Match)
      return &E.getValue();
  }
  return nullptr;
}

PreservedAnalyses decan::ApplyTripCountsPass::run(Function &F,
                                                  FunctionAnalysisManager &AM) {
  const StringMap<unsigned> &Map = tripCounts(F.getContext());
  if (Map.empty() || F.isDeclaration())
    return PreservedAnalyses::all();
  LoopInfo &LI = AM.getResult<LoopAnalysis>(F);
  OptimizationRemarkEmitter &ORE =
      AM.getResult<OptimizationRemarkEmitterAnalysis>(F);
  bool Changed = false;
  for (Loop *L : LI.getLoopsInPreorder()) {
    // decan measures innermost loops: their trip counts are what it knows.
    if (!L->isInnermost())
      continue;
    DebugLoc Loc = loopStartLoc(*L);
    const DILocation *DL = Loc.get();
    if (!DL)
      continue;
    const unsigned *Trips = lookup(Map, *DL);
    if (!Trips)
      continue;
    // Keep the exit weight a PGO profile gave; without one, weights of
    // (N-1):1 say the same as the metadata to passes that read weights.
    unsigned ExitWeight = 0;
    std::optional<unsigned> Before = getLoopEstimatedTripCount(L, &ExitWeight);
    if (!setLoopEstimatedTripCount(
            L, *Trips, ExitWeight ? ExitWeight : std::optional<unsigned>(1)))
      continue;
    Changed = true;
    ORE.emit([&] {
      OptimizationRemark R("decan", "TripCountApplied", Loc, L->getHeader());
      R << "estimated trip count " << ore::NV("TripCount", *Trips)
        << " (decan measured)";
      if (Before)
        R << ", was " << ore::NV("Before", *Before);
      return R;
    });
  }
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}
