//===- decan.cpp - The decan command line ---------------------------------===//
//
// Part of decan. Parses the command and hands it to the tool library.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "decan/Tool/Process.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace {
/// One decan command: its name, what `decan --help` says of it, its entry.
struct Command {
  StringRef Name, Summary;
  int (*Run)(int, char **);
};
} // namespace

static const Command Commands[] = {
    {"flags", "compile and link flags for building with clang-22",
     runFlagsCommand},
    {"list", "loops found in a program and their variants", runListCommand},
    {"run", "measure loops and their variants in a program run", runRunCommand},
    {"report", "analyse a JSON report (table, HTML, remarks)",
     runReportCommand},
    {"compare", "compare two reports loop by loop", runCompareCommand},
    {"tune", "time the optimization candidates of a --tune build",
     runTuneCommand},
    {"rewrite", "build variants into a copy of a prebuilt x86-64 ELF",
     runRewriteCommand},
    {"help",
     "help on a command, or on the tables' columns ('decan help "
     "table')",
     runHelpCommand},
};

void printCommandList(raw_ostream &OS) {
  OS << "OVERVIEW: decan - differential performance analysis of hot loops\n\n"
        "USAGE: decan <command> [options]\n\n"
        "COMMANDS:\n";
  for (const Command &C : Commands)
    OS << "  " << left_justify(C.Name, 10) << " " << C.Summary << "\n";
  OS << "\nOPTIONS:\n"
        "  --help, -h  print this help\n"
        "  --version   print decan's version\n"
        "\nRun 'decan <command> --help' for a command's options, 'decan help "
        "table' for the\ncolumns of the tables.\n";
}

int runNamedCommand(int argc, char **argv) {
  for (const Command &C : Commands)
    if (C.Name == argv[1])
      return C.Run(argc, argv);
  return -1;
}

int reportError(Error E) {
  // A program that died of a signal is no usage error: its status, as
  // time(1) gives it.
  int KilledRC = 0;
  E = handleErrors(std::move(E), [&](const decan::tool::ProgramKilled &K) {
    errs() << "decan: " << K.Message << "\n";
    KilledRC = 128 + K.Signal;
  });
  if (!E)
    return KilledRC;
  std::string Msg = toString(std::move(E));
  // One line, whatever the error carried.
  for (char &C : Msg)
    if (C == '\n')
      C = ' ';
  errs() << "decan: error: " << Msg << "\n";
  return 2;
}

int reportError(const Twine &Msg) {
  return reportError(createStringError(Msg.str()));
}

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  if (argc < 2 || StringRef(argv[1]) == "--help" ||
      StringRef(argv[1]) == "-h") {
    printCommandList(outs());
    return argc < 2 ? 2 : 0;
  }
  StringRef Cmd = argv[1];
  if (Cmd == "--version" || Cmd == "version") {
    outs() << "decan " << DECAN_TOOL_VERSION << "\n";
    return 0;
  }
  if (int RC = runNamedCommand(argc, argv); RC != -1)
    return RC;
  errs() << "decan: error: unknown command '" << argv[1]
         << "' (see 'decan --help')\n";
  return 2;
}
