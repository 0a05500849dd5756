//===- Tune.cpp - Optimization candidates, measured in one run ------------===//
//
// Part of decan. See decan/Tool/Tune.h.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/Tune.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <array>
#include <map>

using namespace llvm;

namespace decan::tool {

static constexpr StringLiteral Marker = ".decan.tune.";

/// Chooses among \p T's candidates (sorted, fastest first) and says why.
static void chooseCandidate(TunedLoop &T, double MinGain) {
  // The twin is the default's code at another address: its distance
  // from the default is layout, not optimization, so every prediction
  // is widened by it and the twin itself is never a choice.
  for (const TuneCandidate &C : T.Candidates)
    if (C.Name == "default-twin")
      T.LayoutSpread =
          std::max(std::abs(1 - C.SpeedupLo), std::abs(1 - C.SpeedupHi));
  const TuneCandidate *BestP = &T.Candidates.front();
  for (const TuneCandidate &C : T.Candidates)
    if (C.Name != "default-twin") {
      BestP = &C;
      break;
    }
  const TuneCandidate &Best = *BestP;
  double Lo = Best.SpeedupLo * (1 - T.LayoutSpread);
  double Hi = Best.SpeedupHi * (1 + T.LayoutSpread);
  if (Best.Name == "default") {
    T.Why = "the compiler's default is the fastest candidate";
  } else if (Best.Pairs < 2) {
    T.Why = "too few undisturbed quarters to compare the candidates "
            "quarter by quarter";
  } else if (Lo <= 1 + MinGain) {
    T.Why =
        formatv("{0} is fastest over the run ({1:F2}x) but not by more "
                "than {2:F0}% in every undisturbed quarter once code "
                "layout is allowed for (the default's twin strays "
                "{3:F1}%): kept the default",
                Best.Name, Best.Speedup, MinGain * 100, T.LayoutSpread * 100)
            .str();
  } else {
    T.Choice = Best.Name;
    T.Predicted = Best.Speedup;
    T.PredictedLo = Lo;
    T.PredictedHi = Hi;
    T.Why = formatv("{0} beats the default in every undisturbed quarter "
                    "of the run ({1:F2}x to {2:F2}x; {3:F2}x to {4:F2}x "
                    "with the {5:F1}% the default's twin strays by code "
                    "layout)",
                    Best.Name, Best.SpeedupLo, Best.SpeedupHi, Lo, Hi,
                    T.LayoutSpread * 100)
                .str();
  }
}

/// Fewer samples than this in a quarter: its cycles come from the quarter's
/// sums (every timed call, disturbed or not).
static constexpr size_t kMinQuarterSamples = 8;

/// Cycles per source iteration of \p L in each quarter of the run from its
/// sampled REF calls and their REF neighbours (one call each, the same
/// candidate's code): a call slower than twice the quarter's median, per
/// iteration and in all, was disturbed (an interrupt, the host, another
/// process) and is left out; the rest, weighted by the calls each stands
/// for, give the quarter's cost. 0 where the quarter has too few samples.
/// The quarters' sums cannot leave a call out: on a loaded machine one
/// disturbed call moved a candidate's quarter by 10-30% (docs/pgo.md).
static std::array<double, 4> sampledQuarterCost(const LoopReport &L,
                                                double ProbeCallCycles) {
  std::array<double, 4> Out{};
  const std::optional<VariantStats> &Ref = L.Variants[Variant::REF];
  if (!Ref)
    return Out;
  struct Call {
    double Cycles, Iterations, Weight;
  };
  std::array<std::vector<Call>, 4> ByQuarter;
  double Step = std::max(1u, L.IterationStep);
  for (const Pair &P : Ref->Pairs) {
    if (P.Work <= 0)
      continue;
    auto &Q = ByQuarter[std::min(3, static_cast<int>(P.RunPos * 4))];
    for (double Cycles : {P.Var, P.Ref})
      if (Cycles > 0)
        Q.push_back(
            {std::max(0.0, Cycles - ProbeCallCycles), P.Work * Step, P.Weight});
  }
  for (int K = 0; K < 4; ++K) {
    std::vector<Call> &Q = ByQuarter[K];
    if (Q.size() < kMinQuarterSamples)
      continue;
    std::vector<double> PerIter, Whole;
    for (const Call &C : Q) {
      PerIter.push_back(C.Cycles / C.Iterations);
      Whole.push_back(C.Cycles);
    }
    double MedPerIter = median(PerIter), MedCall = median(Whole);
    double Cycles = 0, Iterations = 0;
    for (const Call &C : Q)
      if (C.Cycles <= 2 * MedCall ||
          C.Cycles <= 2 * MedPerIter * C.Iterations) {
        Cycles += C.Weight * C.Cycles;
        Iterations += C.Weight * C.Iterations;
      }
    Out[K] = Iterations > 0 ? Cycles / Iterations : 0;
  }
  return Out;
}

std::vector<TunedLoop> tuneResults(const Report &R, double MinGain) {
  struct Acc {
    double Cycles = 0, Iterations = 0;
    double QCycles[4] = {}, QIterations[4] = {};
    /// A quarter's iterations at its sampled calls' cost, and whether every
    /// machine loop that ran in it had enough samples for one.
    double QSampledCycles[4] = {};
    bool QSampled[4] = {true, true, true, true};
    unsigned Step = 0;
    uint64_t Calls = 0;
  };
  // Position -> (function, candidate) -> its machine loops, summed.
  std::map<std::string, std::map<std::string, Acc>> ByLoop;
  std::map<std::string, std::string> FunctionOf;
  for (const LoopReport &L : R.Loops) {
    size_t At = L.Function.find(Marker.data());
    if (At == std::string::npos || !L.RunCalls || !L.RunMeanTrips)
      continue;
    // F.decan.tune.<candidate>, ".<n>" after it when F has several tuned
    // loops (candidate names have no '.').
    std::string Cand =
        StringRef(L.Function).substr(At + Marker.size()).split('.').first.str();
    std::string Pos =
        !L.Source.empty()
            ? StringRef(L.Source).split('|').second.split('|').first.str()
            : L.File + ":" + std::to_string(L.Line);
    FunctionOf[Pos] = L.Function.substr(0, At);
    Acc &A = ByLoop[Pos][Cand];
    unsigned Step = std::max(1u, L.IterationStep);
    A.Cycles += L.TimeCycles;
    A.Iterations += *L.RunMeanTrips * double(L.RunCalls) * Step;
    // A quarter's source iterations at the sampled calls' cost; without
    // enough samples, its sums with the probes' cost per timed region off
    // each call, as in TimeCycles (a candidate with a remainder loop is
    // timed twice per call).
    std::array<double, 4> Sampled = sampledQuarterCost(L, R.ProbeCallCycles);
    for (size_t Q = 0; Q < std::min<size_t>(4, L.Parts.size()); ++Q) {
      double Iterations = L.Parts[Q].Iterations * Step;
      A.QCycles[Q] += std::max(0.0, L.Parts[Q].Cycles -
                                        L.Parts[Q].Calls * R.ProbeCallCycles);
      A.QSampledCycles[Q] += Sampled[Q] * Iterations;
      A.QSampled[Q] = A.QSampled[Q] && (Sampled[Q] > 0 || Iterations <= 0);
      A.QIterations[Q] += Iterations;
    }
    A.Step = std::max(A.Step, Step);
    A.Calls = std::max(A.Calls, L.RunCalls);
  }
  std::vector<TunedLoop> Out;
  for (auto &[Pos, Cands] : ByLoop) {
    auto Def = Cands.find("default");
    if (Def == Cands.end() || Def->second.Iterations <= 0)
      continue;
    TunedLoop T;
    T.Position = Pos;
    T.Function = FunctionOf[Pos];
    for (auto &[Name, A] : Cands) {
      T.LoopCycles += A.Cycles;
      T.SourceIterations += A.Iterations;
    }
    auto PerIter = [](double C, double I) { return I > 0 ? C / I : 0.0; };
    const Acc &D = Def->second;
    // A quarter is costed alike for every candidate: from the sampled
    // calls where each has enough of them, else from the sums (a first
    // touch's page faults, which the samples leave out, are in the sums).
    bool BySamples[4];
    for (int K = 0; K < 4; ++K)
      BySamples[K] = all_of(Cands, [&](const auto &NameAcc) {
        return NameAcc.second.QSampled[K];
      });
    // Per quarter, cycles per source iteration; a quarter more than 1.5x
    // the candidate's best quarter was disturbed (a context switch in one
    // of its few calls weighs more than the candidates differ) and is left
    // out, of the candidate and of the pairs.
    auto Clean = [&](const Acc &A) {
      std::array<double, 4> Q{};
      double Best = 0;
      for (int K = 0; K < 4; ++K) {
        Q[K] = PerIter(BySamples[K] ? A.QSampledCycles[K] : A.QCycles[K],
                       A.QIterations[K]);
        if (Q[K] > 0 && (Best == 0 || Q[K] < Best))
          Best = Q[K];
      }
      for (double &V : Q)
        if (V > 1.5 * Best)
          V = 0;
      return Q;
    };
    std::array<double, 4> DQ = Clean(D);
    for (auto &[Name, A] : Cands) {
      if (A.Iterations <= 0)
        continue;
      TuneCandidate C;
      C.Name = Name;
      C.Step = A.Step;
      C.Calls = A.Calls;
      std::array<double, 4> MQ = Clean(A);
      std::vector<double> Mine, Ratios;
      for (int K = 0; K < 4; ++K) {
        if (MQ[K] <= 0)
          continue;
        Mine.push_back(MQ[K]);
        if (DQ[K] > 0)
          Ratios.push_back(DQ[K] / MQ[K]);
      }
      C.Quarters = Mine;
      C.CyclesPerIteration =
          Mine.empty() ? PerIter(A.Cycles, A.Iterations) : median(Mine);
      C.Lo = Mine.empty() ? C.CyclesPerIteration
                          : *std::min_element(Mine.begin(), Mine.end());
      C.Hi = Mine.empty() ? C.CyclesPerIteration
                          : *std::max_element(Mine.begin(), Mine.end());
      if (Ratios.empty()) {
        C.Speedup = PerIter(D.Cycles, D.Iterations) / C.CyclesPerIteration;
        C.SpeedupLo = C.SpeedupHi = C.Speedup;
      } else {
        C.SpeedupLo = *std::min_element(Ratios.begin(), Ratios.end());
        C.SpeedupHi = *std::max_element(Ratios.begin(), Ratios.end());
        C.Speedup = median(Ratios);
      }
      C.Pairs = Ratios.size();
      T.Candidates.push_back(std::move(C));
    }
    llvm::sort(T.Candidates,
               [](const TuneCandidate &A, const TuneCandidate &B) {
                 return A.CyclesPerIteration < B.CyclesPerIteration;
               });
    chooseCandidate(T, MinGain);
    Out.push_back(std::move(T));
  }
  return Out;
}

double runToRunSpread(const TunedLoop &T, const TuneCandidate &Default) {
  double Spread = T.LayoutSpread;
  if (Default.CyclesPerIteration > 0)
    for (double Q : Default.Quarters)
      Spread = std::max(Spread, std::abs(Q / Default.CyclesPerIteration - 1));
  // Never the whole loop: an interval's low end stays above 0x.
  return std::min(Spread, 0.5);
}

ProgramPrediction predictProgram(const Report &R,
                                 const std::vector<TunedLoop> &Loops) {
  ProgramPrediction P;
  // The program's own time as the shares count it (decan's cost off):
  // from the loop with the largest share, the most precise.
  double Program = 0, Best = 0;
  for (const LoopReport &L : R.Loops)
    if (L.ProgramShare && *L.ProgramShare > Best && L.TimeCycles > 0) {
      Best = *L.ProgramShare;
      Program = L.TimeCycles / Best;
    }
  if (Program <= 0)
    return P;
  // At the default's speed, at the choice's (median, slowest, fastest
  // quarter).
  double AllDefault = Program, Tuned = 0, Mid = 0, Slow = 0, Fast = 0;
  for (const TunedLoop &T : Loops) {
    auto Def = find_if(T.Candidates, [](const TuneCandidate &C) {
      return C.Name == "default";
    });
    if (Def == T.Candidates.end() || T.SourceIterations <= 0)
      continue;
    double D = Def->CyclesPerIteration * T.SourceIterations;
    AllDefault += D - T.LoopCycles;
    Tuned += D;
    bool Kept = T.Choice == "default";
    double S = Kept ? 1 : T.Predicted;
    // A loop left at the default still varies between identical runs: by
    // what its twin strayed and by its own quarters' spread.
    double Same = runToRunSpread(T, *Def);
    double Lo = Kept ? 1 - Same : T.PredictedLo;
    double Hi = Kept ? 1 + Same : T.PredictedHi;
    Mid += D - D / S;
    Slow += D - D / Lo;
    Fast += D - D / Hi;
  }
  if (AllDefault <= 0 || Tuned <= 0 || Tuned > AllDefault)
    return P;
  P.Known = true;
  P.Speedup = AllDefault / (AllDefault - Mid);
  P.Lo = AllDefault / (AllDefault - Slow);
  P.Hi = AllDefault / (AllDefault - Fast);
  P.TunedShare = Tuned / AllDefault;
  return P;
}

void printProgramPrediction(raw_ostream &OS, const ProgramPrediction &P) {
  if (!P.Known) {
    OS << "program: no prediction (the run's own time is unknown)\n";
    return;
  }
  OS << formatv("program: predicted {0:F2}x [{1:F2}, {2:F2}] with every "
                "choice applied (the tuned loops take {3:F1}% of its time "
                "at the default's speed)\n",
                P.Speedup, P.Lo, P.Hi, P.TunedShare * 100);
}

json::Value tuneJSON(const std::vector<TunedLoop> &Loops,
                     const ProgramPrediction &P) {
  json::Array A;
  for (const TunedLoop &T : Loops) {
    json::Array Cs;
    for (const TuneCandidate &C : T.Candidates)
      Cs.push_back(json::Object{
          {"name", C.Name},
          {"cycles_per_iteration", C.CyclesPerIteration},
          {"interval", json::Array{C.Lo, C.Hi}},
          {"iteration_step", static_cast<int64_t>(C.Step)},
          {"calls", static_cast<int64_t>(C.Calls)},
          {"speedup", C.Speedup},
          {"speedup_interval", json::Array{C.SpeedupLo, C.SpeedupHi}}});
    A.push_back(json::Object{
        {"source", T.Position},
        {"function", T.Function},
        {"candidates", std::move(Cs)},
        {"choice", T.Choice},
        {"predicted_speedup", T.Predicted},
        {"predicted_interval", json::Array{T.PredictedLo, T.PredictedHi}},
        {"layout_spread", T.LayoutSpread},
        {"why", T.Why}});
  }
  json::Object O{
      {"tool", "decan"}, {"format", "decan-tune-1"}, {"loops", std::move(A)}};
  if (P.Known)
    O["program"] = json::Object{{"predicted_speedup", P.Speedup},
                                {"predicted_interval", json::Array{P.Lo, P.Hi}},
                                {"tuned_share", P.TunedShare}};
  return O;
}

bool isTuneFile(StringRef Path) {
  auto V = readJSONFile(Path);
  if (!V) {
    consumeError(V.takeError());
    return false;
  }
  const json::Object *O = V->getAsObject();
  return O && O->getString("format") == "decan-tune-1";
}

Expected<std::vector<TunedLoop>> readTuneFile(StringRef Path) {
  auto V = readJSONFile(Path);
  if (!V)
    return V.takeError();
  const json::Object *O = V->getAsObject();
  if (!O || O->getString("format") != "decan-tune-1")
    return createStringError("'%s': not a decan tune file (no "
                             "\"format\":\"decan-tune-1\")",
                             Path.str().c_str());
  std::vector<TunedLoop> Out;
  if (const json::Array *Ls = O->getArray("loops"))
    for (const json::Value &LV : *Ls) {
      const json::Object *LO = LV.getAsObject();
      if (!LO)
        continue;
      TunedLoop T;
      T.Position = LO->getString("source").value_or("").str();
      T.Function = LO->getString("function").value_or("").str();
      T.Choice = LO->getString("choice").value_or("default").str();
      T.Predicted = LO->getNumber("predicted_speedup").value_or(1);
      if (const json::Array *I = LO->getArray("predicted_interval");
          I && I->size() == 2) {
        T.PredictedLo = (*I)[0].getAsNumber().value_or(T.Predicted);
        T.PredictedHi = (*I)[1].getAsNumber().value_or(T.Predicted);
      }
      T.Why = LO->getString("why").value_or("").str();
      if (const json::Array *Cs = LO->getArray("candidates"))
        for (const json::Value &CV : *Cs)
          if (const json::Object *CO = CV.getAsObject()) {
            TuneCandidate C;
            C.Name = CO->getString("name").value_or("").str();
            C.Calls = CO->getInteger("calls").value_or(0);
            C.Speedup = CO->getNumber("speedup").value_or(1);
            C.SpeedupLo = C.SpeedupHi = C.Speedup;
            if (const json::Array *I = CO->getArray("speedup_interval");
                I && I->size() == 2) {
              C.SpeedupLo = (*I)[0].getAsNumber().value_or(C.Speedup);
              C.SpeedupHi = (*I)[1].getAsNumber().value_or(C.Speedup);
            }
            T.Candidates.push_back(std::move(C));
          }
      if (!T.Position.empty())
        Out.push_back(std::move(T));
    }
  return Out;
}

bool hasTuneCandidates(const Report &R) {
  return any_of(R.Loops, [](const LoopReport &L) {
    return StringRef(L.Function).contains(Marker);
  });
}

void printTune(raw_ostream &OS, const std::vector<TunedLoop> &Loops,
               bool Built) {
  if (Loops.empty()) {
    if (Built)
      OS << "decan tune: the program has tuning candidates, but none of "
            "their loops ran (or the default's did not): run it on an input "
            "that calls the tuned loops\n";
    else
      OS << "decan tune: no tuning candidates were measured (build with "
            "$(decan flags --tune REPORT.json))\n";
    return;
  }
  for (const TunedLoop &T : Loops) {
    OS << formatv("{0} in {1}: choice {2}", T.Position, T.Function, T.Choice);
    if (T.Choice != "default")
      OS << formatv(", predicted {0:F2}x [{1:F2}, {2:F2}]", T.Predicted,
                    T.PredictedLo, T.PredictedHi);
    OS << "\n  " << T.Why << "\n";
    OS << formatv("  {0,-16} {1,12} {2,20} {3,5} {4,8} {5,18}\n", "candidate",
                  "cyc/src-it", "quarters (min-max)", "step", "speedup",
                  "speedup quarters");
    for (const TuneCandidate &C : T.Candidates)
      OS << formatv("  {0,-16} {1,12:F3} {2,20} {3,5} {4,7:F2}x {5,18}\n",
                    C.Name, C.CyclesPerIteration,
                    formatv("{0:F3}-{1:F3}", C.Lo, C.Hi).str(), C.Step,
                    C.Speedup,
                    formatv("{0:F2}-{1:F2}x", C.SpeedupLo, C.SpeedupHi).str());
  }
}

} // namespace decan::tool
