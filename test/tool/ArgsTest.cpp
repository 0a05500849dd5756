//===- ArgsTest.cpp - Option tables, run options, shared-library names ----===//
//
// Part of decan.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/Args.h"
#include "decan/Tool/CommandLines.h"
#include "decan/Tool/ElfFacts.h"
#include "decan/Tool/LoopTable.h"
#include "decan/Tool/RunEnvironment.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <cstdio>
#include <dlfcn.h>
#include <set>

using namespace decan::tool;
using namespace llvm;

namespace {

/// Parses \p Args (after "decan CMD") with \p T; the error as text, ""
/// when none.
std::string parseWith(OptionTable &T, std::vector<const char *> Args,
                      bool StopAtFirstPositional = false) {
  Args.insert(Args.begin(), {"decan", "cmd"});
  return toString(T.parse(Args.size(), const_cast<char **>(Args.data()), 2,
                          StopAtFirstPositional));
}

std::string helpOf(const OptionTable &T) {
  std::string S;
  raw_string_ostream OS(S);
  T.printHelp(OS);
  return S;
}

/// Whether help line \p L starts the row of \p Spelling: its left column
/// ("-o, --output FILE") spells it.
bool startsRow(StringRef L, StringRef Spelling) {
  if (!L.starts_with("  -"))
    return false;
  StringRef Left = L.drop_front(2).split("  ").first;
  SmallVector<StringRef, 2> Spellings;
  Left.split(Spellings, ", ");
  return any_of(Spellings,
                [&](StringRef S) { return S.split(' ').first == Spelling; });
}

/// The help row of \p Spelling ("--reps"), its wrapped lines joined.
std::string helpRow(const std::string &Help, StringRef Spelling) {
  SmallVector<StringRef, 64> Lines;
  StringRef(Help).split(Lines, '\n');
  std::string Row;
  bool In = false;
  for (StringRef L : Lines) {
    if (In && (L.starts_with("  -") || !L.starts_with("      ")))
      break;
    In |= startsRow(L, Spelling);
    if (In)
      Row += " " + L.trim().str();
  }
  return Row;
}

/// Every command's table, each bound to arguments of its own.
struct AllTables {
  RunArgs Run;
  ReportArgs Report;
  CompareArgs Compare;
  FlagsArgs Flags;
  TuneArgs Tune;
  ListArgs List;
  RewriteArgs Rewrite;
  std::vector<std::pair<std::string, OptionTable>> Tables;
  AllTables() {
    Tables.emplace_back("run", runOptionTable(Run));
    Tables.emplace_back("report", reportOptionTable(Report));
    Tables.emplace_back("compare", compareOptionTable(Compare));
    Tables.emplace_back("list", listOptionTable(List));
    Tables.emplace_back("flags", flagsOptionTable(Flags));
    Tables.emplace_back("tune", tuneOptionTable(Tune));
    Tables.emplace_back("rewrite", rewriteOptionTable(Rewrite));
  }
};

TEST(OptionTable, RepeatedListKeepsEveryItem) {
  std::vector<std::string> Libs;
  unsigned Reps = 31;
  OptionTable T("decan cmd");
  T.list("lib", "PATH", "libraries", Libs);
  T.number("reps", "N", "repetitions", Reps);
  EXPECT_EQ(parseWith(T,
                      {"--lib", "a.so,b.so", "--lib=c.so", "--reps", "3", "--",
                       "prog", "--lib"},
                      true),
            "");
  EXPECT_EQ(Libs, (std::vector<std::string>{"a.so", "b.so", "c.so"}));
  EXPECT_EQ(Reps, 3u);
  EXPECT_TRUE(T.has("lib") && T.has("reps") && !T.has("help"));
  // The program's own "--lib" is never decan's.
  EXPECT_EQ(T.positionals(), (std::vector<std::string>{"prog", "--lib"}));
}

TEST(OptionTable, ErrorsNameTheOptionAsSpelt) {
  auto ErrorOf = [](std::vector<const char *> Args) {
    std::string Out, Loops;
    bool Quiet = false;
    unsigned Threads = 0;
    OptionTable T("decan cmd");
    T.text("o", "DIR", "directory", Out);
    T.text("loops", "IDS", "loops", Loops);
    T.flag("q", "quiet", Quiet);
    T.number("threads", "N", "threads", Threads);
    return parseWith(T, Args);
  };
  EXPECT_EQ(ErrorOf({"x", "-o"}), "option '-o' needs a value");
  EXPECT_EQ(ErrorOf({"--loops"}), "option '--loops' needs a value");
  EXPECT_EQ(ErrorOf({"-q=1"}), "option '-q' takes no value");
  EXPECT_EQ(ErrorOf({"--frob=2"}), "unknown option '--frob=2'");
  // A typo names the nearest spelling; nothing near, no suggestion.
  EXPECT_EQ(ErrorOf({"--lops=f:L0"}),
            "unknown option '--lops=f:L0'; did you mean '--loops'?");
  EXPECT_EQ(ErrorOf({"--thread"}),
            "unknown option '--thread'; did you mean '--threads'?");
  EXPECT_EQ(ErrorOf({"--hepl"}), "unknown option '--hepl'; did you mean "
                                 "'--help'?");
  EXPECT_EQ(ErrorOf({"--threads=many"}),
            "option '--threads' wants a number, got 'many'");
  EXPECT_EQ(ErrorOf({"x", "-o", "d", "--loops=f:L0", "--threads", "4"}), "");
}

TEST(OptionTable, HelpWrapsBesideTheSpellingsWithinEightyColumns) {
  std::string File;
  OptionTable T("decan cmd [options]", "What it does.", "A note.");
  T.text("output,o", "FILE",
         "write the table to FILE, a long help text that needs more than one "
         "line beside its spelling",
         File)
      .defaultText("standard error");
  std::string Help = helpOf(T);
  SmallVector<StringRef, 16> Lines;
  StringRef(Help).split(Lines, '\n');
  for (StringRef L : Lines)
    EXPECT_LE(L.size(), 80u) << L.str();
  EXPECT_NE(Help.find("USAGE: decan cmd [options]\n\nWhat it does.\n"),
            std::string::npos);
  EXPECT_NE(Help.find("  -o, --output FILE     write the table"),
            std::string::npos)
      << Help;
  EXPECT_NE(helpRow(Help, "--output").find("(default standard error)"),
            std::string::npos);
  EXPECT_NE(helpRow(Help, "--help").find("print this help"), std::string::npos);
  EXPECT_TRUE(StringRef(Help).ends_with("\nA note.\n"));
}

TEST(CommandLines, EveryOptionHasHelpAndOneSpellingPerOption) {
  AllTables All;
  for (auto &[Cmd, T] : All.Tables) {
    std::set<std::string> Names;
    std::string Help = helpOf(T);
    for (const Option &O : T.options()) {
      ASSERT_FALSE(O.names().empty()) << Cmd;
      EXPECT_FALSE(O.help().empty()) << Cmd << " " << O.names()[0];
      for (const std::string &N : O.names())
        EXPECT_TRUE(Names.insert(N).second) << Cmd << ": '" << N << "' twice";
      // Its row is in the help, with its default.
      std::string Row = helpRow(Help, Option::spelling(O.names()[0]));
      EXPECT_FALSE(Row.empty()) << Cmd << " " << O.names()[0];
      if (!O.defaultShown().empty())
        EXPECT_NE(Row.find("(default " + O.defaultShown().str() + ")"),
                  std::string::npos)
            << Cmd << ": " << Row;
    }
  }
}

TEST(CommandLines, RunHelpShowsTheDefaultsARunUses) {
  RunArgs A;
  OptionTable T = runOptionTable(A);
  std::string Help = helpOf(T);
  ASSERT_EQ(parseWith(T, {"--", "prog"}, true), "");
  // Nothing given: the options are RunOptions' defaults, and the help
  // says those.
  const RunOptions D, &O = A.Run;
  EXPECT_EQ(O.Reps, D.Reps);
  EXPECT_EQ(O.Variants, D.Variants);
  EXPECT_EQ(O.Mode, D.Mode);
  EXPECT_EQ(O.Loops, D.Loops);
  EXPECT_EQ(O.MaxRuns, D.MaxRuns);
  EXPECT_EQ(O.FpEnv, D.FpEnv);
  auto Says = [&](StringRef Spelling, const std::string &Default) {
    return helpRow(Help, Spelling).find("(default " + Default + ")") !=
           std::string::npos;
  };
  EXPECT_TRUE(Says("--reps", std::to_string(D.Reps)));
  EXPECT_TRUE(Says("--instance", std::to_string(D.Instance)));
  EXPECT_TRUE(Says("--max-runs", std::to_string(D.MaxRuns)));
  EXPECT_TRUE(Says("--mode", D.Mode));
  EXPECT_TRUE(Says("--loops", D.Loops));
  EXPECT_TRUE(Says("--fp-env", D.FpEnv));
  EXPECT_TRUE(Says("--variants", variantNames(D.Variants)));
  EXPECT_TRUE(Says("--variants", "REF,LS,FP,NO_DIV,DL1,CTRL,NO_CALL"));
  // Each variant is named once in --variants' row.
  for (Variant V : AllVariants)
    EXPECT_NE(helpRow(Help, "--variants").find(variantName(V)),
              std::string::npos);
}

TEST(CommandLines, RunValuesReachTheRunOptions) {
  RunArgs A;
  OptionTable T = runOptionTable(A);
  ASSERT_EQ(parseWith(T,
                      {"--reps", "5", "--variants=LS", "--extended",
                       "--late-nowait", "-o", "t.txt", "--lib", "a.so,b.so",
                       "--events", "cycles", "--hot", "50", "prog", "-x"},
                      true),
            "");
  const RunOptions &O = A.Run;
  EXPECT_EQ(O.Reps, 5u);
  EXPECT_EQ(O.rotation(),
            (std::vector<Variant>{Variant::REF, Variant::LS, Variant::S2L,
                                  Variant::NO_STORE, Variant::NO_RED,
                                  Variant::PREFETCH}));
  EXPECT_EQ(O.lateMode(), RunOptions::LateMode::Always);
  EXPECT_FALSE(O.lateWait());
  EXPECT_EQ(A.TableFile, "t.txt");
  EXPECT_EQ(O.Libs, (std::vector<std::string>{"a.so", "b.so"}));
  EXPECT_EQ(O.Events, std::vector<std::string>{"cycles"});
  EXPECT_EQ(O.HotPercent, 50.0);
  EXPECT_EQ(T.positionals(), (std::vector<std::string>{"prog", "-x"}));
}

TEST(CommandLines, UnknownOptionsAndBadValuesAreOneLineErrors) {
  AllTables All;
  for (auto &[Cmd, T] : All.Tables)
    EXPECT_EQ(parseWith(T, {"--no-such-option"}),
              "unknown option '--no-such-option'")
        << Cmd;
  auto RunError = [](std::vector<const char *> Args) {
    RunArgs A;
    OptionTable T = runOptionTable(A);
    return parseWith(T, Args, true);
  };
  EXPECT_EQ(RunError({"--reps", "many"}),
            "option '--reps' wants a number, got 'many'");
  // Written as decan flags --hot writes PERCENT.
  {
    RunArgs A;
    OptionTable T = runOptionTable(A);
    EXPECT_EQ(parseWith(T, {"--hot", "80%", "prog"}, true), "");
    EXPECT_EQ(A.Run.HotPercent, 80.0);
  }
  EXPECT_EQ(RunError({"--hot", "most"}),
            "--hot wants a percentage in (0, 100], got 'most'");
  EXPECT_EQ(RunError({"--lib", ","}), "--lib wants a shared library path");
  std::string BadVariant = RunError({"--variants", "REF,FOO"});
  EXPECT_TRUE(StringRef(BadVariant).starts_with("unknown variant 'FOO'"));
  EXPECT_EQ(BadVariant.find('\n'), std::string::npos);
}

TEST(RunOptions, ValidationRefusesWhatCannotRun) {
  auto ErrorOf = [](auto Change) {
    RunOptions O;
    O.Command = {"prog"};
    Change(O);
    return toString(validateRunOptions(O));
  };
  EXPECT_EQ(ErrorOf([](RunOptions &) {}), "");
  EXPECT_EQ(ErrorOf([](RunOptions &O) { O.Command.clear(); }),
            "no program given (decan run [options] -- PROGRAM [ARGS...])");
  EXPECT_EQ(ErrorOf([](RunOptions &O) { O.Loops = " , "; }),
            "--loops wants loop ids or 'all'");
  EXPECT_EQ(ErrorOf([](RunOptions &O) { O.Reps = 0; }),
            "--reps and --max-runs must be at least 1");
  EXPECT_EQ(ErrorOf([](RunOptions &O) { O.Mode = "sideways"; }),
            "unknown mode 'sideways' (rotate, replace, instance)");
  EXPECT_EQ(ErrorOf([](RunOptions &O) { O.FpEnv = "nearest"; }),
            "unknown floating-point environment 'nearest' (--fp-env ftz or "
            "keep)");
  EXPECT_EQ(ErrorOf([](RunOptions &O) { O.HotPercent = 150; }),
            "--hot wants a percentage in (0, 100], got '150'");
  EXPECT_EQ(ErrorOf([](RunOptions &O) { O.AskLate = O.AskNoLate = true; }),
            "--late or --no-late, not both");
  EXPECT_EQ(
      ErrorOf([](RunOptions &O) { O.AskLateNoWait = O.AskNoLate = true; }),
      "--late-nowait asks for late variants: no --no-late");
  EXPECT_EQ(ErrorOf([](RunOptions &O) {
              O.AskLate = true;
              O.Loops = "f:L0";
            }),
            "--late builds variants for the loops that run: no "
            "--find-first, --hot or --loops");
}

TEST(SharedLibraryName, SonameOfALoadedLibrary) {
  Dl_info Info;
  ASSERT_TRUE(dladdr(reinterpret_cast<void *>(&std::printf), &Info));
  auto Name = sharedLibraryName(Info.dli_fname);
  ASSERT_TRUE(bool(Name)) << toString(Name.takeError());
  EXPECT_EQ(*Name, "libc.so.6");
}

TEST(DynamicFacts, ProgramAndLibrary) {
  auto Self = readDynamicFacts("/proc/self/exe");
  ASSERT_TRUE(bool(Self)) << toString(Self.takeError());
  EXPECT_TRUE(Self->Program);
  EXPECT_TRUE(Self->Interpreter) << "a dynamically linked test program";
  EXPECT_FALSE(Self->isStaticProgram());
  EXPECT_TRUE(llvm::is_contained(Self->Needed, "libc.so.6"));

  Dl_info Info;
  ASSERT_TRUE(dladdr(reinterpret_cast<void *>(&std::printf), &Info));
  auto Libc = readDynamicFacts(Info.dli_fname);
  ASSERT_TRUE(bool(Libc)) << toString(Libc.takeError());
  EXPECT_FALSE(Libc->Program);
  EXPECT_FALSE(Libc->isStaticProgram());
  EXPECT_EQ(Libc->SoName, "libc.so.6");
}

TEST(SharedLibraryName, RejectsProgramsAndOtherFiles) {
  // This test program: a PIE or a fixed-address executable, never a library.
  auto Self = sharedLibraryName("/proc/self/exe");
  ASSERT_FALSE(bool(Self));
  std::string Msg = toString(Self.takeError());
  EXPECT_TRUE(StringRef(Msg).contains("not a shared library") ||
              StringRef(Msg).contains("is a program (PIE)"))
      << Msg;

  SmallString<128> Text;
  int FD;
  ASSERT_FALSE(sys::fs::createTemporaryFile("decan-args", "txt", FD, Text));
  {
    raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << "not an ELF file\n";
  }
  auto NotElf = sharedLibraryName(Text);
  ASSERT_FALSE(bool(NotElf));
  EXPECT_NE(toString(NotElf.takeError()).find("not a shared library"),
            std::string::npos);
  sys::fs::remove(Text);
}

TEST(RunEnvironment, UnknownDecanVariablesAndBadValuesAreWarnedOnce) {
  const char *Env[] = {
      "PATH=/bin",         "DECAN_REPZ=5",          "DECAN_WARMUP=two",
      "DECAN_CACHE=maybe", "DECAN_LATE_MIN_MB=1.5", "DECAN_MAX_RECORDS=1000",
      "DECAN_REPS=9",      "DECAN_FROBNICATE=1",    nullptr};
  EXPECT_EQ(checkDecanVariables(Env),
            (std::vector<std::string>{
                "unknown variable DECAN_REPZ ignored; did you mean "
                "DECAN_REPS?",
                "DECAN_WARMUP='two' is not a non-negative integer: the "
                "default is used",
                "DECAN_CACHE='maybe' is not 0, 1, off, on, no or yes: the "
                "default is used",
                "DECAN_REPS is set by decan run (--reps): this value is "
                "ignored",
                "unknown variable DECAN_FROBNICATE ignored"}));
}

} // namespace
