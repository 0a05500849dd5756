//===- decan/Tool/RunHints.h - What a run did not measure, and why --------===//
//
// Part of decan. After the runs: why a `--lib` library measured nothing,
// where the time of a program whose loops cover little of it likely is,
// (`--lib auto`) which libraries opened with dlopen got no copy, and which
// rotated variants the program's build has no copies of.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TOOL_RUNHINTS_H
#define DECAN_TOOL_RUNHINTS_H

#include "decan/Tool/DlopenCopies.h"
#include "decan/Tool/LibraryCopies.h"
#include "decan/Tool/LoopTable.h"
#include "decan/Tool/Report.h"
#include "decan/Tool/RunOptions.h"

#include "llvm/Support/raw_ostream.h"

namespace decan::tool {

/// Says why a `--lib` library measured nothing (never loaded, loaded from
/// elsewhere, a wrapper without loops of its own), and (\p Hint) where the
/// time of a program with no measured loop likely is (also kept as the
/// report's config "libraries_hint", which the HTML page shows).
void explainLibraries(Report &R, const LibraryCopies &Libs,
                      llvm::StringRef ProgName, llvm::raw_ostream &Log,
                      bool Hint);

/// `--lib auto`: one line for the libraries the program loaded that got no
/// copy (opened with dlopen, or needed by one that was, and not measured):
/// what to rerun with.
void listUnmeasured(const Report &R, const LibraryCopies &Libs,
                    const DlopenCopies &Dlopen, llvm::raw_ostream &Log);

/// The skip reason the plugin gives a loop of an optnone (-O0) function.
inline constexpr llvm::StringLiteral OptNoneReason =
    "function is optnone (-O0)";

/// Why nothing in \p Loops, the loop table of \p Binary, can be measured
/// (every loop skipped: built at -O0, all cold...), "" when a loop can.
std::string whyNoLoopInstrumented(llvm::ArrayRef<MetaLoop> Loops,
                                  llvm::StringRef Binary);

/// "no -g: ..." when measured loops have no file:line (a binary without
/// debug info, rewritten): said once, not on every loop; "" otherwise.
std::string noLocationNote(const Report &R);

/// One line for the variants \p O rotated that the loops' build has no
/// copies of (a plugin build makes by default only what `decan run`
/// rotates by default): the `decan flags` options that build them.
void explainNotBuilt(const Report &R, const RunOptions &O,
                     llvm::raw_ostream &Log);

} // namespace decan::tool

#endif // DECAN_TOOL_RUNHINTS_H
