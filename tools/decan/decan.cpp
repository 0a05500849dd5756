//===- decan.cpp - The decan command line ---------------------------------===//
//
// Part of decan. Parses the command and hands it to the tool library.
//
//===----------------------------------------------------------------------===//

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

static void printHelp(raw_ostream &OS) {
  OS << "OVERVIEW: decan - differential performance analysis of hot loops\n\n"
        "USAGE: decan <command> [options]\n\n"
        "COMMANDS:\n"
        "  flags      compile and link flags for building with clang-22\n"
        "  list       loops found in a program and their variants\n"
        "  run        measure loops and their variants in a program run\n"
        "  report     analyse a JSON report (table, HTML, remarks)\n"
        "  compare    compare two reports loop by loop\n"
        "  rewrite    build variants into a copy of a prebuilt x86-64 ELF\n\n"
        "Run 'decan <command> --help' for a command's options.\n";
}

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  if (argc < 2 || StringRef(argv[1]) == "--help" || StringRef(argv[1]) == "-h") {
    printHelp(outs());
    return argc < 2 ? 2 : 0;
  }
  errs() << "decan: error: unknown command '" << argv[1]
         << "' (see 'decan --help')\n";
  return 2;
}
