//===- Commands.h - The decan commands ------------------------------------===//
//
// Part of decan. One function per command; each returns the process exit
// code (0 success, 1 the measured program failed but its data were
// analysed, 2 bad input: one "decan: error: ..." line).
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TOOLS_COMMANDS_H
#define DECAN_TOOLS_COMMANDS_H

#include "decan/Rewriter/Rewriter.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

int runFlagsCommand(int argc, char **argv);
int runListCommand(int argc, char **argv);
int runRunCommand(int argc, char **argv);
int runReportCommand(int argc, char **argv);
int runCompareCommand(int argc, char **argv);
int runTuneCommand(int argc, char **argv);
/// The rewriter (decan/Rewriter/Instrument.h) does the work.
int runRewriteCommand(int argc, char **argv);
/// `decan help [table|COMMAND]`.
int runHelpCommand(int argc, char **argv);

/// One line per region of a rewritten copy (an outer loop or a function):
/// id, where, source, and its patched sites or why it is not timed
/// (`decan rewrite --regions`, `decan list --regions`).
void printRegionOutcomes(llvm::raw_ostream &OS,
                         llvm::ArrayRef<decan::rewriter::RegionOutcome> Rs);

/// `decan --help`: the commands and the global options.
void printCommandList(llvm::raw_ostream &OS);
/// Runs the command argv[1] names; -1 when there is none of that name.
int runNamedCommand(int argc, char **argv);

/// Prints "decan: error: <E>" as one line and returns 2; a ProgramKilled
/// (decan/Tool/Process.h) prints its line and returns 128 + the signal.
int reportError(llvm::Error E);
/// Prints "decan: error: <Msg>" and returns 2.
int reportError(const llvm::Twine &Msg);

#endif // DECAN_TOOLS_COMMANDS_H
