//===- decan/Tool/Verdicts.h - What the analyses conclude, as enums -------===//
//
// Part of decan. Each kind of conclusion (a loop's verdict, its streams
// class, its memory/CPU class, a comparison's verdict, how two loops were
// matched and on what basis they were compared) is an enum with one name
// table: the names are what the table, the HTML and the JSON reports print
// (docs/tool.md), and what reading a report back parses. nameOf() and
// parseName() are the only ways between the two.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TOOL_VERDICTS_H
#define DECAN_TOOL_VERDICTS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <utility>

namespace decan::tool {

/// Algorithm 2's outcome (thesis 4.5.3) on Sat(LS) and Sat(FP). None: not
/// measured; NearThreshold: a class that changes within the saturations'
/// margin (classifyReplicates), which supports no class.
enum class StreamsClass {
  None,
  Balanced,
  MemoryBound,
  FPBound,
  Unsaturated,
  NearThreshold
};

/// The PAMDA overview (thesis 5.4.2): Algorithm 2 on Sat(LS) and Sat(DL1).
enum class MemoryCpuClass {
  None,
  Balanced,
  MemoryBound,
  CpuBound,
  Unsaturated,
  NearThreshold
};

/// A loop's headline verdict: its streams class, LatencyBound (a pointer
/// chase: REF alone decides), Inconclusive (LoopReport::Inconclusive says
/// why), Blocked (the loop mostly waits off the CPU: no bound verdict), or
/// None (no verdict: LS/FP not measured, a region).
enum class VerdictClass {
  None,
  Balanced,
  MemoryBound,
  FPBound,
  Unsaturated,
  NearThreshold,
  LatencyBound,
  Inconclusive,
  Blocked
};

/// `decan compare`'s verdict on one source loop (Compare.h).
enum class CompareVerdict {
  GainShowedUp,      ///< the gain A's saturations predicted showed up in B
  BeyondPrediction,  ///< B gained more than A predicted
  Partly,            ///< less than half the predicted gain
  GainNonePredicted, ///< B gained, A predicted nothing measurable
  NoGain,
  Slower,
  DifferentWork, ///< the loops run different shares of the source loop
  NoDataInA,
  NoDataInB,
  OnlyInA,
  OnlyInB
};

/// How `decan compare` matched two loops: None (one side only), Source
/// (same identity), SourceLocation (same file:line:col and origin, other
/// nest or inlining), Id (no source identity on either side), Fuzzy (an
/// edit moved the loop: same function, scored on nest position, accesses
/// and line; LoopMatching.h).
enum class MatchKind { None, Source, SourceLocation, Id, Fuzzy };

/// What a comparison's speedup is per: None (no speedup), a source
/// iteration (both sides know their trip counts and steps), or a call.
enum class SpeedupPer { None, SourceIteration, Call };

/// The label of a class that changes within the saturations' margin
/// (classifyReplicates): the name of each NearThreshold.
inline constexpr const char *kNearThreshold = "near a threshold";

/// The name table of enum \p E: Names[i] = {value, name}.
template <typename E> struct EnumNames;

#define DECAN_ENUM_NAMES(E, ...)                                               \
  template <> struct EnumNames<E> {                                            \
    static constexpr std::pair<E, const char *> Names[] = {__VA_ARGS__};       \
  };

DECAN_ENUM_NAMES(StreamsClass, {StreamsClass::None, ""},
                 {StreamsClass::Balanced, "balanced"},
                 {StreamsClass::MemoryBound, "memory-bound"},
                 {StreamsClass::FPBound, "fp-bound"},
                 {StreamsClass::Unsaturated, "unsaturated"},
                 {StreamsClass::NearThreshold, kNearThreshold})
DECAN_ENUM_NAMES(MemoryCpuClass, {MemoryCpuClass::None, ""},
                 {MemoryCpuClass::Balanced, "balanced"},
                 {MemoryCpuClass::MemoryBound, "memory-bound"},
                 {MemoryCpuClass::CpuBound, "cpu-bound"},
                 {MemoryCpuClass::Unsaturated, "unsaturated"},
                 {MemoryCpuClass::NearThreshold, kNearThreshold})
DECAN_ENUM_NAMES(VerdictClass, {VerdictClass::None, ""},
                 {VerdictClass::Balanced, "balanced"},
                 {VerdictClass::MemoryBound, "memory-bound"},
                 {VerdictClass::FPBound, "fp-bound"},
                 {VerdictClass::Unsaturated, "unsaturated"},
                 {VerdictClass::NearThreshold, kNearThreshold},
                 {VerdictClass::LatencyBound, "latency-bound"},
                 {VerdictClass::Inconclusive, "inconclusive"},
                 {VerdictClass::Blocked, "blocked"})
DECAN_ENUM_NAMES(CompareVerdict,
                 {CompareVerdict::GainShowedUp, "gain showed up"},
                 {CompareVerdict::BeyondPrediction, "beyond prediction"},
                 {CompareVerdict::Partly, "partly"},
                 {CompareVerdict::GainNonePredicted, "gain, none predicted"},
                 {CompareVerdict::NoGain, "no gain"},
                 {CompareVerdict::Slower, "slower"},
                 {CompareVerdict::DifferentWork, "different work"},
                 {CompareVerdict::NoDataInA, "no data in A"},
                 {CompareVerdict::NoDataInB, "no data in B"},
                 {CompareVerdict::OnlyInA, "only in A"},
                 {CompareVerdict::OnlyInB, "only in B"})
DECAN_ENUM_NAMES(MatchKind, {MatchKind::None, ""},
                 {MatchKind::Source, "source"},
                 {MatchKind::SourceLocation, "source location"},
                 {MatchKind::Id, "id"}, {MatchKind::Fuzzy, "fuzzy"})
DECAN_ENUM_NAMES(SpeedupPer, {SpeedupPer::None, ""},
                 {SpeedupPer::SourceIteration, "per source iteration"},
                 {SpeedupPer::Call, "per call"})

#undef DECAN_ENUM_NAMES

/// The name of \p V in its table.
template <typename E> llvm::StringRef nameOf(E V) {
  for (const auto &[Value, Name] : EnumNames<E>::Names)
    if (Value == V)
      return Name;
  llvm_unreachable("a value missing from its name table");
}

/// The value named \p Name in \p E's table, or nullopt.
template <typename E> std::optional<E> parseName(llvm::StringRef Name) {
  for (const auto &[Value, N] : EnumNames<E>::Names)
    if (Name == N)
      return Value;
  return std::nullopt;
}

/// An enum with a name table.
template <typename E>
concept NamedEnum = requires {
  EnumNames<E>::Names;
};

/// An enum in JSON is its name (llvm::json::Value and ObjectMapper find
/// these by argument-dependent lookup).
template <NamedEnum E> llvm::json::Value toJSON(E V) { return nameOf(V); }
template <NamedEnum E>
bool fromJSON(const llvm::json::Value &V, E &Out, llvm::json::Path P) {
  std::optional<llvm::StringRef> S = V.getAsString();
  std::optional<E> X = S ? parseName<E>(*S) : std::nullopt;
  if (!X) {
    P.report("not a name of this kind");
    return false;
  }
  Out = *X;
  return true;
}

/// The verdict a streams class states.
inline VerdictClass verdictOf(StreamsClass C) {
  switch (C) {
  case StreamsClass::None:
    return VerdictClass::None;
  case StreamsClass::Balanced:
    return VerdictClass::Balanced;
  case StreamsClass::MemoryBound:
    return VerdictClass::MemoryBound;
  case StreamsClass::FPBound:
    return VerdictClass::FPBound;
  case StreamsClass::Unsaturated:
    return VerdictClass::Unsaturated;
  case StreamsClass::NearThreshold:
    return VerdictClass::NearThreshold;
  }
  llvm_unreachable("unknown streams class");
}

/// Whether \p V says B gained (a gain that showed up, beyond or without
/// a prediction; not a partial one).
inline bool isGain(CompareVerdict V) {
  return V == CompareVerdict::GainShowedUp ||
         V == CompareVerdict::BeyondPrediction ||
         V == CompareVerdict::GainNonePredicted;
}

} // namespace decan::tool

#endif // DECAN_TOOL_VERDICTS_H
