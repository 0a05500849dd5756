//===- ArgsTest.cpp - Option parsing, shared-library names ----------------===//
//
// Part of decan.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/Args.h"
#include "decan/Tool/LoopTable.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <cstdio>
#include <dlfcn.h>

using namespace decan::tool;
using namespace llvm;

namespace {

TEST(ArgParser, RepeatedOptionKeepsEveryValue) {
  const char *Argv[] = {"decan",  "run", "--lib", "a.so,b.so", "--lib=c.so",
                        "--reps", "3",   "--",    "prog",      "--lib"};
  ArgParser P({"lib", "reps"}, {});
  ASSERT_FALSE(errorToBool(
      P.parse(std::size(Argv), const_cast<char **>(Argv), 2, true)));
  EXPECT_EQ(P.getAll("lib"), (std::vector<std::string>{"a.so,b.so", "c.so"}));
  EXPECT_EQ(P.get("lib"), "c.so");
  EXPECT_TRUE(P.getAll("reps").size() == 1);
  EXPECT_TRUE(P.getAll("nothing").empty());
  // The program's own "--lib" is never decan's.
  EXPECT_EQ(P.positionals(), (std::vector<std::string>{"prog", "--lib"}));
}

TEST(ArgParser, ErrorsNameTheOptionAsSpelt) {
  auto ErrorOf = [](std::vector<const char *> Argv) {
    ArgParser P({"o", "loops"}, {"q"});
    return toString(P.parse(Argv.size(), const_cast<char **>(Argv.data()), 2));
  };
  EXPECT_EQ(ErrorOf({"decan", "rewrite", "x", "-o"}),
            "option '-o' needs a value");
  EXPECT_EQ(ErrorOf({"decan", "rewrite", "--loops"}),
            "option '--loops' needs a value");
  EXPECT_EQ(ErrorOf({"decan", "rewrite", "-q=1"}),
            "option '-q' takes no value");
  EXPECT_EQ(ErrorOf({"decan", "rewrite", "--frob=2"}),
            "unknown option '--frob=2'");
  EXPECT_EQ(ErrorOf({"decan", "rewrite", "x", "-o", "d", "--loops=f:L0"}), "");
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

} // namespace
