//===- decan/Tool/CommandLines.h - Each command's options, declared once --===//
//
// Part of decan. One OptionTable per command, bound to that command's
// arguments: the table parses the command line into them and writes the
// command's --help. The defaults are the arguments' member initialisers
// (RunOptions' for `decan run`).
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TOOL_COMMANDLINES_H
#define DECAN_TOOL_COMMANDLINES_H

#include "decan/Tool/Args.h"
#include "decan/Tool/RunOptions.h"

#include <optional>
#include <string>
#include <vector>

namespace decan::tool {

/// The analysed report `decan run` writes without --json, in the current
/// directory, and `decan report` reads without a file (as perf.data).
inline constexpr const char *DefaultResultsFile = "decan.json";

/// The report files every analysing command may write ("" = not asked);
/// --verbose rides along: the table they come with prints every warning.
struct ReportFiles {
  std::string Json, Html, Remarks;
  bool Verbose = false;
};

/// `decan run`.
struct RunArgs {
  RunOptions Run;
  std::string TableFile; ///< -o ("" = standard error)
  ReportFiles Files;
};
OptionTable runOptionTable(RunArgs &A);

/// `decan report`.
struct ReportArgs {
  ReportFiles Files;
  std::string SweepParam;
};
OptionTable reportOptionTable(ReportArgs &A);

/// `decan compare`.
struct CompareArgs {
  std::string Json, Html, Tune;
};
OptionTable compareOptionTable(CompareArgs &A);

/// `decan list`: no option of its own.
/// `decan list`.
struct ListArgs {
  bool Verbose = false;
  bool Regions = false; ///< a prebuilt program's regions too
};
OptionTable listOptionTable(ListArgs &A);

/// `decan flags`.
struct FlagsArgs {
  bool CFlags = false, Libs = false, Regions = false, AllowFastMath = false;
  /// --lto: the link (lld) loads the plugin and takes its options.
  bool Lto = false;
  /// --nests: 2-level loop nests outlined with their variants (F:N<k>).
  bool Nests = false;
  /// --ship: the build a user ships (--apply's hints, nothing linked).
  bool Ship = false;
  /// The variants built besides REF: --variants as given (nullopt: what
  /// `decan run` rotates by default), and the lists --extended and --groups
  /// add.
  std::optional<std::vector<Variant>> Variants;
  bool Extended = false, Groups = false;
  std::string Hot, Apply, Tune;
};
OptionTable flagsOptionTable(FlagsArgs &A);

/// `decan tune`.
struct TuneArgs {
  std::string Json, Report;
};
OptionTable tuneOptionTable(TuneArgs &A);

/// `decan rewrite`.
struct RewriteArgs {
  std::string OutDir, Loops, LatePack;
  /// --variants as given (nullopt: what `decan run` rotates by default).
  std::optional<std::vector<Variant>> Variants;
  unsigned Threads = 0; ///< 0: one per core
  bool List = false, Disasm = false, Quiet = false, All = false,
       Profile = false, Extended = false, Groups = false, LateBase = false,
       Regions = false, Nests = false;
};
OptionTable rewriteOptionTable(RewriteArgs &A);

/// "REF, LS, ...": \p Vs' names.
std::string variantNames(llvm::ArrayRef<Variant> Vs, llvm::StringRef Sep = ",");

} // namespace decan::tool

#endif // DECAN_TOOL_COMMANDLINES_H
