//===- analyses/Claims.h - What the analyses share: words and claims ------===//
//
// Part of decan. The entry point of every analysis of the list
// (AnalysisList.cpp runs them), and how they word what they claim: a
// percentage, a saturation with its interval, a claim's confidence, a class
// the bootstrap replicates split over.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TOOL_ANALYSES_CLAIMS_H
#define DECAN_TOOL_ANALYSES_CLAIMS_H

#include "decan/Tool/AnalysisList.h"

#include "llvm/ADT/StringRef.h"

#include <string>
#include <utility>
#include <vector>

namespace decan::tool::analyses {

// The analyses, in the list's order (each in the file of its name).
void shares(AnalysisContext &C);           // Shares.cpp
void saturations(AnalysisContext &C);      // Saturations.cpp
void ranking(AnalysisContext &C);          // Ranking.cpp
void regions(AnalysisContext &C);          // Regions.cpp
void precision(AnalysisContext &C);        // Precision.cpp
void variantCalls(AnalysisContext &C);     // VariantCalls.cpp
void suspectVariants(AnalysisContext &C);  // SuspectVariants.cpp
void calls(AnalysisContext &C);            // Calls.cpp
void streams(AnalysisContext &C);          // Streams.cpp
void controlBound(AnalysisContext &C);     // ControlBound.cpp
void inconclusive(AnalysisContext &C);     // Inconclusive.cpp
void memoryCpu(AnalysisContext &C);        // MemoryCpu.cpp
void dl1(AnalysisContext &C);              // DL1.cpp
void divisions(AnalysisContext &C);        // Divisions.cpp
void stores(AnalysisContext &C);           // Stores.cpp
void reduction(AnalysisContext &C);        // Reduction.cpp
void prefetch(AnalysisContext &C);         // Prefetch.cpp
void threads(AnalysisContext &C);          // Threads.cpp
void groups(AnalysisContext &C);           // Groups.cpp
void ctrl(AnalysisContext &C);             // Ctrl.cpp
void shareCaveats(AnalysisContext &C);     // Shares.cpp
void phases(AnalysisContext &C);           // Phases.cpp
void coherence(AnalysisContext &C);        // Coherence.cpp
void unavailable(AnalysisContext &C);      // Unavailable.cpp
void crashes(AnalysisContext &C);          // Crashes.cpp
void loopStructure(AnalysisContext &C);    // LoopStructure.cpp
void oversubscription(AnalysisContext &C); // Oversubscription.cpp
void blocked(AnalysisContext &C);          // Blocked.cpp

/// Runs \p F on every loop of C that is not a region, with its state;
/// on a loop that mostly waits (LoopState::Blocked) only when \p Blocked.
template <typename Fn>
void forEachLoop(AnalysisContext &C, Fn F, bool Blocked = false) {
  for (size_t I = 0; I < C.R.Loops.size(); ++I)
    if (!C.R.Loops[I].isRegion() && (Blocked || !C.Loops[I].Blocked))
      F(C.R.Loops[I], C.Loops[I]);
}

/// The variant \p V's saturation is read against (decan/variants.def's
/// reference: S2L for the variants that turn stores into loads, so they
/// measure only their own change, thesis 4.5.2), or REF when the loop has
/// no S2L measurement (it does not store).
Variant referenceOf(const LoopState &St, Variant V);
/// " against S2L", or "" against REF.
std::string againstText(Variant Ref);

/// "42%".
std::string pct(double X);
/// "at least " where the loop's saturations may read high by a short
/// call's term (LoopState::ShortCall of NoiseFloor or more): a cost read
/// from one is a lower bound.
llvm::StringRef atLeast(const LoopState &S, const Thresholds &T);
/// "1 call", "3 calls".
std::string plural(uint64_t N, llvm::StringRef Noun);
/// "0.42 [0.40, 0.44]".
std::string interval(const Interval &I);
/// "memory-bound in 60% of resamples, balanced in 40%".
std::string describeSplit(const Classified &C);

/// A claim holds when its replicates agree; unpaired runs carry no
/// replicates and state their claims without a confidence.
bool confident(const Classified &C, bool Paired, const Thresholds &T);
/// ", confidence 97%" for a paired claim, "" otherwise.
std::string confidenceText(const Classified &C, bool Paired);
/// A claim stands when it is confident and its point is not on a
/// threshold (an unpaired run has no replicates, only the point).
bool settled(const Classified &C, bool Paired, const Thresholds &T);
/// Sat(V) as "0.42 [0.40, 0.44]" when it has an interval, else "0.42".
std::string satText(const LoopState &S, Variant V);
/// "costly" when removing the target gains at least \p Cost, else "cheap".
/// \p Below: how far the saturation may read high (a short call's bias,
/// LoopState::ShortCall).
Classified costClaim(double Sat, const std::vector<double> &Reps, double Cost,
                     const Thresholds &T, double Below = 0);
/// Sat(V) against variant \p Ref (thesis 4.5.2): the point and the
/// replicates divided by Ref's; Sat(V) itself when \p Ref is REF.
std::pair<std::optional<double>, std::vector<double>>
against(const LoopState &S, Variant V, Variant Ref);

/// Whether LS was not built because it would be REF itself (empty: every
/// arithmetic instruction feeds the exit test or an address, a search, and
/// there is no store to turn into a load). Its saturation is then exactly
/// 1: the memory stream with the control is the whole loop.
bool lsIsRef(const LoopReport &L);
/// Sat(LS) and its replicates; where lsIsRef, 1 and \p N replicates of 1
/// (as many as the saturation it is set against has).
std::pair<std::optional<double>, std::vector<double>>
satOfLS(const LoopReport &L, const LoopState &S, size_t N);
/// Sat(LS)'s interval in words ("1 (LS is REF)" where lsIsRef).
std::string satLSInterval(const LoopReport &L, const LoopState &S);

} // namespace decan::tool::analyses

#endif // DECAN_TOOL_ANALYSES_CLAIMS_H
