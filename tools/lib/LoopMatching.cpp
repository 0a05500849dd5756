//===- LoopMatching.cpp - Loops of two reports paired ---------------------===//
//
// Part of decan. See decan/Tool/LoopMatching.h.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/LoopMatching.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

using namespace llvm;

namespace decan::tool {

SourceParts::SourceParts(StringRef Key) {
  std::tie(Origin, Key) = Key.split('|');
  std::tie(Pos, Key) = Key.split('|');
  std::tie(Nest, Inlined) = Key.split('|');
}

namespace {

/// Body before remainder: the widest machine loop of a source loop (the
/// largest iteration step) meets the other build's widest, then by time.
bool widestFirst(const LoopReport *X, const LoopReport *Y) {
  if (X->IterationStep != Y->IterationStep)
    return X->IterationStep > Y->IterationStep;
  return X->TimeCycles > Y->TimeCycles;
}

/// Pairs the machine loops of one source loop in \p A with those in \p B.
void pairGroup(std::vector<const LoopReport *> A,
               std::vector<const LoopReport *> B, const LoopMatch &Proto,
               std::vector<LoopMatch> &Out) {
  std::stable_sort(A.begin(), A.end(), widestFirst);
  std::stable_sort(B.begin(), B.end(), widestFirst);
  for (size_t I = 0; I < std::min(A.size(), B.size()); ++I) {
    LoopMatch M = Proto;
    M.A = A[I];
    M.B = B[I];
    Out.push_back(std::move(M));
  }
}

/// A source loop as the fuzzy pass sees it: one entry per loop as written
/// (origin and position), with its machine loops.
struct SourceLoop {
  std::string Origin, File, InlinedInto;
  unsigned Line = 0, Column = 0, Depth = 0;
  /// Its place among its origin's source loops in its report (by line and
  /// column): from the start and from the end.
  unsigned Index = 0, FromEnd = 0;
  std::set<std::string> Accesses;
  double SourceItersPerCall = 0; ///< of its hottest machine loop; 0 unknown
  std::vector<const LoopReport *> Loops;
};

double sourceItersPerCall(const LoopReport &L) {
  double Trips = 0;
  const std::optional<VariantStats> &R = L.Variants[Variant::REF];
  if (R && R->TripsKnown)
    Trips = R->TripsMedian;
  else if (L.RunMeanTrips)
    Trips = *L.RunMeanTrips;
  return Trips * std::max(1u, L.IterationStep);
}

/// The source loops of \p Loops (those with a source identity); the place
/// of each among its origin's loops counts every loop of \p All.
std::vector<SourceLoop> sourceLoops(ArrayRef<const LoopReport *> Loops,
                                    ArrayRef<const LoopReport *> All) {
  std::map<std::string, std::set<std::pair<unsigned, unsigned>>> Places;
  auto Parse = [](const LoopReport &L, SourceLoop &S) {
    SourceParts P(L.Source);
    StringRef File = P.Pos, Col, Line;
    std::tie(File, Col) = File.rsplit(':');
    std::tie(File, Line) = File.rsplit(':');
    S.Origin = P.Origin.str();
    S.File = sys::path::filename(File).str();
    Line.getAsInteger(10, S.Line);
    Col.getAsInteger(10, S.Column);
    S.Depth = P.Nest.empty() ? 0 : 1 + P.Nest.count('/');
    // The functions it was inlined through, without their (moving) lines.
    SmallVector<StringRef, 4> Sites;
    P.Inlined.split(Sites, '<', -1, false);
    for (StringRef Site : Sites)
      S.InlinedInto += Site.split('@').first.str() + "<";
  };
  for (const LoopReport *L : All)
    if (!L->Source.empty()) {
      SourceLoop S;
      Parse(*L, S);
      Places[S.Origin].insert({S.Line, S.Column});
    }
  std::map<std::string, SourceLoop> ByKey;
  for (const LoopReport *L : Loops) {
    if (L->Source.empty())
      continue;
    SourceLoop &S = ByKey[SourceParts(L->Source).written()];
    if (S.Loops.empty())
      Parse(*L, S);
    S.Loops.push_back(L);
    for (const MemoryGroup &G : L->Groups)
      S.Accesses.insert(G.Name);
  }
  std::vector<SourceLoop> Out;
  for (auto &[Key, S] : ByKey) {
    const std::set<std::pair<unsigned, unsigned>> &P = Places[S.Origin];
    S.Index = std::distance(P.begin(), P.find({S.Line, S.Column}));
    S.FromEnd = P.size() - 1 - S.Index;
    const LoopReport *Hot =
        *std::max_element(S.Loops.begin(), S.Loops.end(),
                          [](const LoopReport *X, const LoopReport *Y) {
                            return X->TimeCycles < Y->TimeCycles;
                          });
    S.SourceItersPerCall = sourceItersPerCall(*Hot);
    Out.push_back(std::move(S));
  }
  return Out;
}

/// How alike two source loops of one function are (0 to 1), and why; a
/// negative score where they cannot be the same loop.
double fuzzyScore(const SourceLoop &A, const SourceLoop &B, std::string &Why) {
  if (A.Origin != B.Origin || A.File != B.File ||
      A.InlinedInto != B.InlinedInto)
    return -1;
  unsigned Common = 0;
  for (const std::string &G : A.Accesses)
    Common += B.Accesses.count(G);
  size_t Union = A.Accesses.size() + B.Accesses.size() - Common;
  // Loops that access different arrays are different loops, wherever
  // they sit.
  if (!A.Accesses.empty() && !B.Accesses.empty() && !Common)
    return -1;
  double Jaccard = Union ? double(Common) / Union : 0.5;
  double Score = 0.25 * Jaccard;
  std::vector<std::string> Agreed = {"function"};
  if (A.Index == B.Index) {
    Score += 0.30;
    Agreed.push_back("nest position");
  } else if (A.FromEnd == B.FromEnd) {
    Score += 0.15; // a loop before it came or went
    Agreed.push_back("nest position from the function's end");
  }
  if (A.Depth == B.Depth)
    Score += 0.10;
  if (A.SourceItersPerCall > 0 && B.SourceItersPerCall > 0) {
    double R = std::min(A.SourceItersPerCall, B.SourceItersPerCall) /
               std::max(A.SourceItersPerCall, B.SourceItersPerCall);
    Score += 0.10 * R;
    if (R > 0.95)
      Agreed.push_back("trip count");
  } else {
    Score += 0.05;
  }
  double Moved = std::abs(double(A.Line) - double(B.Line));
  Score += 0.20 / (1 + Moved / 4);
  if (A.Column == B.Column)
    Score += 0.05;
  if (Common) {
    std::vector<std::string> Names;
    for (const std::string &G : A.Accesses)
      if (B.Accesses.count(G))
        Names.push_back(G);
    Agreed.push_back(
        formatv("{0} ({1})",
                Common == Union ? "the same accesses" : "accesses in common",
                join(Names, ", "))
            .str());
  }
  std::string Last = Agreed.back();
  Agreed.pop_back();
  Why = "fuzzy, matched by " +
        (Agreed.empty() ? Last : join(Agreed, ", ") + " and " + Last);
  if (A.Line != B.Line)
    Why += formatv("; line {0} -> {1}", A.Line, B.Line).str();
  if (A.Column != B.Column)
    Why += formatv("; column {0} -> {1}", A.Column, B.Column).str();
  Why += formatv("; score {0:F2}", Score).str();
  return Score;
}

/// The fuzzy pass over the loops no exact pass paired.
void matchFuzzy(ArrayRef<const LoopReport *> RestA,
                ArrayRef<const LoopReport *> RestB,
                ArrayRef<const LoopReport *> AllA,
                ArrayRef<const LoopReport *> AllB, double Threshold,
                std::vector<LoopMatch> &Out) {
  std::vector<SourceLoop> SA = sourceLoops(RestA, AllA),
                          SB = sourceLoops(RestB, AllB);
  struct Candidate {
    size_t A, B;
    double Score, Moved;
    std::string Why;
  };
  std::vector<Candidate> Cands;
  for (size_t I = 0; I < SA.size(); ++I)
    for (size_t J = 0; J < SB.size(); ++J) {
      std::string Why;
      double S = fuzzyScore(SA[I], SB[J], Why);
      if (S >= Threshold)
        Cands.push_back(
            {I, J, S, std::abs(double(SA[I].Line) - double(SB[J].Line)), Why});
    }
  std::stable_sort(
      Cands.begin(), Cands.end(), [](const Candidate &X, const Candidate &Y) {
        return X.Score != Y.Score ? X.Score > Y.Score : X.Moved < Y.Moved;
      });
  std::vector<bool> UsedA(SA.size()), UsedB(SB.size());
  for (const Candidate &C : Cands) {
    if (UsedA[C.A] || UsedB[C.B])
      continue;
    UsedA[C.A] = UsedB[C.B] = true;
    LoopMatch Proto;
    Proto.By = MatchKind::Fuzzy;
    Proto.Score = C.Score;
    Proto.Why = C.Why;
    pairGroup(SA[C.A].Loops, SB[C.B].Loops, Proto, Out);
  }
}

} // namespace

std::vector<LoopMatch> matchLoops(ArrayRef<const LoopReport *> As,
                                  ArrayRef<const LoopReport *> Bs,
                                  double Threshold) {
  std::vector<LoopMatch> Out;
  std::set<const LoopReport *> Taken;
  auto Exact = [&](auto Key, MatchKind By) {
    std::map<std::string, std::vector<const LoopReport *>> GA, GB;
    for (const LoopReport *L : As)
      if (!Taken.count(L))
        if (std::string K = Key(*L); !K.empty())
          GA[K].push_back(L);
    for (const LoopReport *L : Bs)
      if (!Taken.count(L))
        if (std::string K = Key(*L); !K.empty())
          GB[K].push_back(L);
    LoopMatch Proto;
    Proto.By = By;
    size_t First = Out.size();
    for (auto &[K, LA] : GA)
      if (auto It = GB.find(K); It != GB.end())
        pairGroup(LA, It->second, Proto, Out);
    for (size_t I = First; I < Out.size(); ++I)
      Taken.insert({Out[I].A, Out[I].B});
  };
  Exact([](const LoopReport &L) { return L.Source; }, MatchKind::Source);
  Exact(
      [](const LoopReport &L) {
        return L.Source.empty() ? std::string()
                                : SourceParts(L.Source).written();
      },
      MatchKind::SourceLocation);
  Exact([](const LoopReport &L) { return L.Source.empty() ? L.Id : ""; },
        MatchKind::Id);
  // Extra machine copies of a source loop matched above (a remainder, an
  // inlined copy) are no moved loop: the fuzzy pass leaves them out.
  std::set<std::string> Matched;
  for (const LoopReport *L : Taken)
    if (!L->Source.empty())
      Matched.insert(SourceParts(L->Source).written());
  auto Rest = [&](ArrayRef<const LoopReport *> Ls) {
    std::vector<const LoopReport *> R;
    for (const LoopReport *L : Ls)
      if (!Taken.count(L) && (L->Source.empty() ||
                              !Matched.count(SourceParts(L->Source).written())))
        R.push_back(L);
    return R;
  };
  std::vector<const LoopReport *> RestA = Rest(As), RestB = Rest(Bs);
  matchFuzzy(RestA, RestB, As, Bs, Threshold, Out);
  return Out;
}

} // namespace decan::tool
