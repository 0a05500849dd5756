//===- decan/Tool/Render.h - Tables, HTML and remarks from a report -------===//
//
// Part of decan. Everything a user reads: the terminal table of `decan run`
// and `decan report`, the loop list of `decan list`, the self-contained HTML
// report (inline SVG charts, no network), and LLVM optimization-record YAML
// remarks that `llvm-opt-report`-style tools show at the source line.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TOOL_RENDER_H
#define DECAN_TOOL_RENDER_H

#include "decan/Tool/LoopTable.h"
#include "decan/Tool/Report.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace decan::tool {

/// The per-loop table: loops in rankedLoops' order (what a fix would
/// save), one line per variant with cycles per call and per iteration
/// (median, min), stability and saturation, then diagnosis and warnings:
/// each warning a line when \p Verbose, else one foldedWarnings line.
void printReportTable(llvm::raw_ostream &OS, const Report &R,
                      bool Verbose = false);

/// A loop's warnings as one line: how many, and each kind once (its head,
/// with the variants it was said of), "(--verbose prints them)".
std::string foldedWarnings(llvm::ArrayRef<std::string> Warnings);

/// "file.c:12", "file.c" without a line, "?" without a file: a loop's
/// source position as the table and the HTML page print it.
std::string sourceLocation(const std::string &File, unsigned Line);
/// "42.0%": shares as the table and the HTML page print them.
std::string percentText(double X);

/// \p S with <, >, & and " escaped for HTML text and attributes.
std::string htmlEscape(llvm::StringRef S);

/// `decan list`'s table.
void printLoopList(llvm::raw_ostream &OS, const std::vector<MetaLoop> &Loops);

/// A sweep: run i of a series was measured at parameter value Labels[i].
struct Sweep {
  std::string Param;
  std::vector<std::string> Labels;
  std::vector<double> Values; ///< numeric values, when all labels are
  bool Numeric = false;
};

/// Parses "name=v1,v2,..." for \p NumRuns runs (one value per run).
llvm::Expected<Sweep> parseSweep(llvm::StringRef Spec, size_t NumRuns);

/// One self-contained HTML page. With one report: per loop a bar chart of
/// saturations. With several and \p S: also per loop saturation curves and
/// cycles-per-iteration curves against the sweep parameter; the loop
/// sections show the last run's table.
void writeHTML(llvm::raw_ostream &OS, const std::vector<Report> &Runs,
               const Sweep *S);

/// Remarks in LLVM's YAML optimization-record format: one Analysis remark
/// per diagnosis line and one per warning, at the loop's source line, pass
/// name "decan".
llvm::Error writeRemarks(llvm::raw_ostream &OS, const Report &R);

} // namespace decan::tool

#endif // DECAN_TOOL_RENDER_H
