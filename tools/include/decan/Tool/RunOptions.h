//===- decan/Tool/RunOptions.h - What a `decan run` is asked to do --------===//
//
// Part of decan. The options of a run, each with its default as a member
// initialiser (the `decan run --help` text shows these), and the one check
// of them all, made before any work.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TOOL_RUNOPTIONS_H
#define DECAN_TOOL_RUNOPTIONS_H

#include "decan/InstrKnowledge/VariantTable.h"
#include "decan/Tool/Report.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace decan::tool {

/// The rotation unless asked otherwise: the verdicts' variants
/// (decan/variants.def's DEFAULT list).
inline constexpr auto DefaultVariants =
    variantsIn<VariantSet::Default, Variant>();
/// What --extended adds to the rotation: stores, the reduction chain,
/// load ports.
inline constexpr auto ExtendedVariants =
    variantsIn<VariantSet::Extended, Variant>();
/// What --groups adds: each memory group in L1, and removed.
inline constexpr auto GroupVariants = variantsIn<VariantSet::Groups, Variant>();

struct RunOptions {
  std::string Loops = "all"; ///< "all" or comma list of loop ids
  /// The default rotation: the variants of the verdicts. Each variant in
  /// the rotation takes its share of a loop's calls; with all 19, a loop
  /// called 200 times got 14 pairs per variant and its verdict flipped to
  /// inconclusive in 3 runs of 10. The others are asked for (--extended:
  /// stores, reduction, load ports; --groups: each array) once the verdict
  /// points at them.
  std::vector<Variant> Variants{DefaultVariants.begin(), DefaultVariants.end()};
  bool Extended = false;       ///< also ExtendedVariants
  bool Groups = false;         ///< also GroupVariants
  unsigned Reps = 31;          ///< measured calls wanted per loop and variant
  std::string Mode = "rotate"; ///< rotate, replace or instance
  unsigned Instance = 1;       ///< instance mode: the call measured
  std::vector<std::string> Events;
  std::optional<double> HotPercent;
  /// Program runs at most, --hot's included: 1 by default (the run is the
  /// user's); more only on request, for loops short of samples.
  unsigned MaxRuns = 1;
  std::string KeepRawDir;           ///< copy raw reports here ("" = drop them)
  std::string LibDir;               ///< where libdecan_rt.so lives (preloading)
  bool Progress = false;            ///< draw a progress line on stderr
  std::vector<std::string> Command; ///< program (or launcher) and arguments
  /// Shared libraries whose loops are measured (`--lib`): each is used as
  /// is when plugin-built, else rewritten into the run's temporary
  /// directory; the copy is put under the name the loader looks for
  /// (DT_SONAME, else the file name) in a directory prepended to
  /// LD_LIBRARY_PATH; a dlopen of the original by path opens the copy. With
  /// libraries, a program without a loop table runs unmodified (only the
  /// libraries are measured). "auto": the libraries the program links
  /// (Libraries.h: read from the files, the program is not run for it) and
  /// those it opens with dlopen (DlopenCopies.h), not the C and C++
  /// runtimes; and the program itself.
  std::vector<std::string> Libs;
  /// A prebuilt program or library (not plugin-built): every loop is
  /// rewritten with its variants before the one run (the program runs
  /// once), or only the loops --loops names. True: a first, REF-only run
  /// (its output dropped) shows which loops run (--hot: the hottest), and
  /// only those get variants: a fast start for a large library, at the
  /// price of a second run the user asked for.
  bool FindFirst = false;
  /// A prebuilt program or library, late variants: a quick base copy (no
  /// measured copy, every loop's calls counted) runs at once; the loops
  /// that ran get their variants while the program runs (a late pack the
  /// runtime installs) and from the start of the next run (cached with the
  /// copy). docs/rewriter.md, "Late variants". As asked: --late,
  /// --no-late, --late-nowait (late variants the program never waits for:
  /// they arrive while it goes on); lateMode() and lateWait() say what
  /// these mean.
  bool AskLate = false, AskNoLate = false, AskLateNoWait = false;
  /// DECAN_FP_ENV for the runtime: "ftz" (exceptions masked, FTZ/DAZ set for
  /// every variant) or "keep" (MXCSR left as the program set it).
  std::string FpEnv = "ftz";
  /// Time the regions a `decan flags --regions` build placed (outer loops,
  /// functions with loops): DECAN_REGIONS=1.
  bool Regions = false;
  /// Rewrite 2-level nests of prebuilt inputs as loops (NestFinder.h).
  bool Nests = false;

  /// Auto: when the inputs to rewrite are large (lateByDefault), unless
  /// --loops, --find-first or --hot choose the loops.
  enum class LateMode { Auto, Always, Never };
  LateMode lateMode() const {
    return AskLate || AskLateNoWait ? LateMode::Always
           : AskNoLate              ? LateMode::Never
                                    : LateMode::Auto;
  }
  /// With late variants, the thread that requests a copy's first pack
  /// waits for it (the pause is not the program's time), so a short
  /// program is measured in its first run.
  bool lateWait() const { return !AskLateNoWait; }
  /// The variants rotated: Variants, what --extended and --groups add,
  /// each once, and REF first unless Variants has it.
  std::vector<Variant> rotation() const;
  /// Loops != "all": the ids asked for.
  std::vector<std::string> loopIds() const;
};

/// Checks every option of a run against the others and what it may be;
/// the error is one line naming the option. Makes no change and starts
/// nothing: RunSession::create calls it first.
llvm::Error validateRunOptions(const RunOptions &O);

/// Checks perf/libpfm4 event names; the error names the unknown event.
llvm::Error validateEvents(const std::vector<std::string> &Events);

} // namespace decan::tool

#endif // DECAN_TOOL_RUNOPTIONS_H
