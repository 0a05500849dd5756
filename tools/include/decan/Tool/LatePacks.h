//===- decan/Tool/LatePacks.h - Late variants: base copies and packs ------===//
//
// Part of decan. `decan run` with late variants (docs/rewriter.md, "Late
// variants"): whether a run takes them (lateByDefault), and the packs of
// variants built for the loops that ran, while the program runs.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TOOL_LATEPACKS_H
#define DECAN_TOOL_LATEPACKS_H

#include "decan/Rewriter/Instrument.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace decan::tool {

/// Inputs to rewrite of this many MB or more take late variants unless
/// asked otherwise (DECAN_LATE_MIN_MB overrides it).
inline constexpr unsigned LateMinMegabytes = 16;

/// Why late variants are the default for this run ("libx.so is 36.5 MB"),
/// or nullopt: when the inputs decan would rewrite (\p Program unless
/// \p ProgramPlain or a launcher, and the \p Libs without a loop table)
/// are LateMinMegabytes or more. A full rewrite takes about 0.6 s per MB
/// (OpenBLAS, 36.5 MB: 22 s and a copy 6x the input) where a base copy
/// and a pack for the loops that ran take a few seconds and stay within
/// 2x.
std::optional<std::string> lateByDefault(llvm::StringRef Program,
                                         bool ProgramPlain,
                                         llvm::ArrayRef<std::string> Libs);

/// The base copies the program runs, and their late packs. Round K of a
/// copy is the runtime's `<copy>.request.K` (loops that ran without
/// copies) answered by `<copy>.pack.K`, laid out in the late range past
/// the packs before it (or `<copy>.nopack.K`). A cached pack (`<copy>.pack`
/// next to the copy, its loops in `<copy>.pack-loops`) is round 0, so the
/// next run starts with it; after the run, every loop that ran (the
/// runtime's `<copy>.ran.PID`) goes into the cached pack of the next run.
class LatePacks {
public:
  /// \p Dir: the run's late directory (DECAN_LATE_DIR); \p Wait: the
  /// program waits for its first pack; \p VariantMask: the packs' variants.
  LatePacks(std::string Dir, bool Wait, unsigned VariantMask,
            llvm::raw_ostream &Log)
      : Dir(std::move(Dir)), Wait(Wait), Log(Log) {
    Opts.VariantMask = VariantMask;
  }

  /// A base copy \p Copy of \p Input (nothing when either is "").
  void add(llvm::StringRef Input, llvm::StringRef Copy);
  bool empty() const { return Bases.empty(); }
  const std::string &dir() const { return Dir; }

  /// Before a run: the cached packs into the late directory (round 0).
  llvm::Error stage();
  /// While the program runs: a copy it opens with dlopen (DlopenCopies.h),
  /// its cached pack staged before the program loads it.
  void addDuringRun(llvm::StringRef Input, llvm::StringRef Copy);
  /// While the program runs: answers each request with a pack.
  void poll();
  /// After the run: every loop that ran goes into the pack of the next
  /// run, built again in one piece unless the run's only pack is it.
  void finish();

private:
  struct Base {
    std::string Input, Copy, Name;
    /// Loops of the cached pack staged (round 0), built this run, and
    /// left out of every pack (`<copy>.pack-left`: not asked for again).
    std::vector<std::string> Cached, Built, Left;
    unsigned Round = 0;
    uint64_t NextOffset = 0;
  };
  /// Its cached pack into the late directory (round 0), if any.
  void stageOne(Base &B);
  std::string path(const Base &B, llvm::StringRef Suffix) const;
  std::string round(const Base &B, llvm::StringRef Kind, unsigned K) const;
  double seconds() const;
  void keepLoops(Base &B, llvm::ArrayRef<std::string> Built);

  std::string Dir;
  bool Wait;
  rewriter::LatePackOptions Opts;
  llvm::raw_ostream &Log;
  std::vector<Base> Bases;
  std::chrono::steady_clock::time_point Start;
};

} // namespace decan::tool

#endif // DECAN_TOOL_LATEPACKS_H
