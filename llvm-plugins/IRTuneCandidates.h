//===- IRTuneCandidates.h - decan: the tuning candidates ------------------===//
//
// Part of decan. The one list of `decan tune`'s candidates: a name (what
// decan tune prints and `-decan-loop-hints` takes) and the loop hints it
// stands for. IRTune.cpp puts the hints on a loop; IRTuneExtract.cpp builds
// one copy of a tuned loop per candidate.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_LLVM_PLUGINS_IRTUNECANDIDATES_H
#define DECAN_LLVM_PLUGINS_IRTUNECANDIDATES_H

#include "llvm/ADT/StringRef.h"

namespace decan {

/// A candidate: a name and the loop hints it stands for (0: no hint).
/// Names have no '.': a clone is named F.decan.tune.<name>[.<n>].
struct TuneCandidate {
  const char *Name;
  unsigned Width, Interleave, Unroll;
  /// Whether the candidate transforms the nest: the loop is then tuned as
  /// part of its parent loop, which each copy holds whole.
  bool Nest = false;

  /// Whether the hints may license the vectoriser to reorder floating-point
  /// arithmetic (vectorising or interleaving a reduction).
  bool mayReassociate() const { return Width > 1 || Interleave > 1; }
  bool hasHints() const { return Width || Interleave || Unroll; }
};

/// The candidates, "default" (the compiler's own choice, no hint) first.
/// A hint the vectoriser cannot honour (a dependence) leaves the loop as
/// the compiler would; decan tune sees it in the clone's iteration step.
/// "default-twin" is the default again, at another address: how far two
/// copies of the same code differ (code layout, thesis 6.5.1) widens every
/// prediction, and it is never chosen.
inline constexpr TuneCandidate TuneCandidates[] = {
    {"default", 0, 0, 0}, {"default-twin", 0, 0, 0},
    {"scalar", 1, 1, 0},  {"scalar-unroll4", 1, 1, 4},
    {"vf2", 2, 1, 0},     {"vf4", 4, 1, 0},
    {"vf4-il2", 4, 2, 0}, {"vf8", 8, 1, 0},
    {"vf8-il2", 8, 2, 0},
};

inline const TuneCandidate *findTuneCandidate(llvm::StringRef Name) {
  for (const TuneCandidate &C : TuneCandidates)
    if (Name == C.Name)
      return &C;
  return nullptr;
}

} // namespace decan

#endif // DECAN_LLVM_PLUGINS_IRTUNECANDIDATES_H
