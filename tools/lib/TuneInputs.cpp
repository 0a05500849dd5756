//===- TuneInputs.cpp - One choice from several inputs --------------------===//
//
// Part of decan. See decan/Tool/TuneInputs.h.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/TuneInputs.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>

using namespace llvm;

namespace decan::tool {

std::vector<TunedLoop> chooseAcrossInputs(const std::vector<TuneInput> &Inputs,
                                          std::vector<std::string> &Notes,
                                          double MinGain) {
  // Position -> each input's tuned loop there.
  std::map<std::string, std::vector<std::pair<std::string, const TunedLoop *>>>
      ByPos;
  for (const auto &[Name, Loops] : Inputs)
    for (const TunedLoop &T : Loops)
      ByPos[T.Position].push_back({Name, &T});
  std::vector<TunedLoop> Out;
  for (auto &[Pos, Runs] : ByPos) {
    TunedLoop T;
    T.Position = Pos;
    T.Function = Runs.front().second->Function;
    // A candidate's worst speedup and interval over the inputs; measured
    // (with calls) in every one of them, else it is no choice.
    struct Over {
      unsigned Inputs = 0;
      double Worst = 0, Lo = 0, Hi = 0;
    };
    std::map<std::string, Over> Cands;
    for (auto &[Name, L] : Runs)
      for (const TuneCandidate &C : L->Candidates) {
        if (!C.Calls || C.Name == "default-twin")
          continue;
        Over &O = Cands[C.Name];
        bool First = O.Inputs++ == 0;
        O.Worst = First ? C.Speedup : std::min(O.Worst, C.Speedup);
        O.Lo = First ? C.SpeedupLo : std::min(O.Lo, C.SpeedupLo);
        O.Hi = First ? C.SpeedupHi : std::max(O.Hi, C.SpeedupHi);
      }
    std::string Best;
    double BestWorst = 1 + MinGain;
    for (auto &[Name, O] : Cands)
      if (O.Inputs == Runs.size() && Name != "default" && O.Worst > BestWorst)
        Best = Name, BestWorst = O.Worst;
    if (!Best.empty()) {
      const Over &O = Cands[Best];
      T.Choice = Best;
      T.Predicted = O.Worst;
      T.PredictedLo = O.Lo;
      T.PredictedHi = O.Hi;
    }
    T.Why = formatv("best worst-case speedup over {0} input(s)", Runs.size());
    std::vector<std::string> Own;
    bool Differ = false;
    for (auto &[Name, L] : Runs) {
      Own.push_back(Name + " " + L->Choice);
      Differ |= L->Choice != Runs.front().second->Choice;
    }
    if (Differ)
      Notes.push_back(
          formatv("{0}: the choice depends on the input ({1}); "
                  "kept {2}{3}",
                  Pos, join(Own, ", "), T.Choice,
                  T.Choice == "default"
                      ? " (no candidate beats it on every input)"
                      : formatv(" (at worst {0:F2}x)", T.Predicted).str())
              .str());
    Out.push_back(std::move(T));
  }
  return Out;
}

} // namespace decan::tool
