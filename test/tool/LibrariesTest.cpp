//===- LibrariesTest.cpp - The libraries a program links, found unrun -----===//
//
// Part of decan. Tiny programs and libraries are built with the C compiler
// that builds decan (DECAN_TEST_CC), each search rule checked against what
// ld.so(8) does; nothing depends on libraries beyond libc.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/Libraries.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>

using namespace decan::tool;
using namespace llvm;

namespace {

/// A temporary directory tree, removed at the end of the test.
struct TempTree {
  std::string Path;
  TempTree() {
    SmallString<128> P;
    EXPECT_FALSE(sys::fs::createUniqueDirectory("decan-libraries", P));
    // Its real path: $ORIGIN and the paths found are compared with it.
    SmallString<128> Real;
    EXPECT_FALSE(sys::fs::real_path(P, Real));
    Path = Real.str().str();
  }
  ~TempTree() { sys::fs::remove_directories(Path); }
  std::string at(StringRef Rel) const { return Path + "/" + Rel.str(); }
};

/// Builds \p Out from the C text \p Source with \p Flags; the file's
/// directory is created.
void build(const TempTree &T, StringRef Source, StringRef Flags,
           StringRef Out) {
  std::string Src = T.at("src.c");
  std::ofstream(Src) << Source.str();
  ASSERT_FALSE(sys::fs::create_directories(sys::path::parent_path(T.at(Out))));
  std::string Cmd = std::string(DECAN_TEST_CC) + " -w -o '" + T.at(Out) +
                    "' '" + Src + "' " + Flags.str();
  ASSERT_EQ(std::system(Cmd.c_str()), 0) << Cmd;
}

const char *const Dep = "int dep(int x) { return x + 1; }\n";
const char *const Mid = "int dep(int); int mid(int x) { return dep(x) * 2; }\n";
const char *const MidAlone = "int mid(int x) { return x * 2; }\n";
const char *const Main =
    "int mid(int); int main(int c, char **v) { return mid(c) == 6 ? 0 : 1; }\n";

/// The path \p Closure found for \p Name ("?" when absent).
std::string foundFor(ArrayRef<NeededLibrary> Closure, StringRef Name) {
  for (const NeededLibrary &L : Closure)
    if (L.Name == Name)
      return L.Path;
  return "?";
}

std::string normal(StringRef P) {
  SmallString<256> S(P);
  sys::path::remove_dots(S, /*remove_dot_dot=*/true);
  return S.str().str();
}

TEST(LoaderTokens, OriginLibPlatform) {
  LoaderSearch S;
  S.Lib = "lib/x86_64-linux-gnu";
  S.Platform = "x86_64";
  EXPECT_EQ(expandLoaderTokens("$ORIGIN/../lib", "/opt/app/bin", S),
            "/opt/app/bin/../lib");
  EXPECT_EQ(expandLoaderTokens("${ORIGIN}/x:", "/o", S), "/o/x:");
  EXPECT_EQ(expandLoaderTokens("/usr/$LIB/${PLATFORM}", "/o", S),
            "/usr/lib/x86_64-linux-gnu/x86_64");
  EXPECT_EQ(expandLoaderTokens("/plain/dir", "", S), "/plain/dir");
  // The loader skips an entry with a token it does not know, and $ORIGIN
  // with no object to be relative to.
  EXPECT_EQ(expandLoaderTokens("$HOME/lib", "/o", S), std::nullopt);
  EXPECT_EQ(expandLoaderTokens("${ORIGIN/lib", "/o", S), std::nullopt);
  EXPECT_EQ(expandLoaderTokens("$ORIGIN/lib", "", S), std::nullopt);
}

/// An ld.so.cache image in glibc's new format: entries {flags, name,
/// path, hwcap}.
std::string cacheImage(
    ArrayRef<std::tuple<uint32_t, std::string, std::string, uint64_t>> E) {
  std::string Head = "glibc-ld.so.cache1.1";
  Head.resize(48, '\0');
  uint32_t N = E.size();
  std::memcpy(&Head[20], &N, 4);
  std::string Strings;
  size_t StrBase = 48 + 24 * E.size();
  std::string Entries;
  for (const auto &[Flags, Key, Value, HwCap] : E) {
    uint32_t K = StrBase + Strings.size();
    Strings += Key + '\0';
    uint32_t V = StrBase + Strings.size();
    Strings += Value + '\0';
    char Raw[24] = {};
    std::memcpy(Raw, &Flags, 4);
    std::memcpy(Raw + 4, &K, 4);
    std::memcpy(Raw + 8, &V, 4);
    std::memcpy(Raw + 16, &HwCap, 8);
    Entries.append(Raw, 24);
  }
  return Head + Entries + Strings;
}

TEST(LdSoCache, KeepsTheX8664Entries) {
  std::string Image = cacheImage({
      {0x0303, "libz.so.1", "/hw/libz.so.1", 1},    // glibc-hwcaps: last
      {0x0003, "libz.so.1", "/lib32/libz.so.1", 0}, // i386
      {0x0303, "libz.so.1", "/lib/x86_64-linux-gnu/libz.so.1", 0},
      {0x0303, "libz.so.1", "/second/libz.so.1", 0},
      {0x0301, "libold.so", "/usr/lib64/libold.so", 0},
      {0x0303, "libhw.so", "/hw/libhw.so", 1},
  });
  auto C = parseLdSoCache(Image);
  EXPECT_EQ(C.size(), 3u);
  EXPECT_EQ(C["libz.so.1"], "/lib/x86_64-linux-gnu/libz.so.1");
  EXPECT_EQ(C["libold.so"], "/usr/lib64/libold.so");
  EXPECT_EQ(C["libhw.so"], "/hw/libhw.so");

  // Behind the old format's part (glibc before 2.32), offsets from the
  // new header's start.
  std::string Old = "ld.so-1.7.0";
  Old.resize(16, '\0');
  uint32_t One = 1;
  std::memcpy(&Old[12], &One, 4);
  Old += std::string(12, '\0') + "libz.so.1\0/x\0";
  Old.resize(alignTo(Old.size(), 8), '\0');
  EXPECT_EQ(parseLdSoCache(Old + Image)["libz.so.1"],
            "/lib/x86_64-linux-gnu/libz.so.1");

  EXPECT_TRUE(parseLdSoCache("not a cache").empty());
  EXPECT_TRUE(parseLdSoCache(Image.substr(0, 60)).empty()) << "truncated";
}

TEST(LdSoCache, ThisSystemsFindsLibc) {
  if (!sys::fs::exists("/etc/ld.so.cache"))
    GTEST_SKIP() << "no /etc/ld.so.cache";
  LoaderSearch S = LoaderSearch::fromSystem();
  ASSERT_TRUE(S.Cache.count("libc.so.6"));
  EXPECT_TRUE(sys::fs::exists(S.Cache["libc.so.6"]));
  EXPECT_NE(findLibrary("libc.so.6", S), "");
  EXPECT_EQ(findLibrary("libdecan-no-such-library.so.9", S), "");
}

TEST(NeededClosure, RunPathWithOrigin) {
  TempTree T;
  build(T, Dep, "-shared -fPIC -Wl,-soname,libdep.so.1", "deps/libdep.so.1");
  build(T, Mid,
        "-shared -fPIC -Wl,-soname,libmid.so -Wl,--enable-new-dtags "
        "-Wl,-rpath,'$ORIGIN/../deps' -L" +
            T.at("deps") + " -l:libdep.so.1",
        "lib/libmid.so");
  build(T, Main,
        "-Wl,--enable-new-dtags -Wl,-rpath,'$ORIGIN/../lib' -L" + T.at("lib") +
            " -lmid -Wl,-rpath-link," + T.at("deps"),
        "bin/prog");
  // The loader agrees.
  ASSERT_EQ(std::system(("'" + T.at("bin/prog") + "' x").c_str()), 0);

  LoaderSearch S = LoaderSearch::fromSystem();
  S.LibraryPath.clear();
  auto C = neededClosure(T.at("bin/prog"), S);
  ASSERT_TRUE(bool(C)) << toString(C.takeError());
  // Breadth first: libmid.so and libc before libdep.so.1.
  ASSERT_GE(C->size(), 3u);
  EXPECT_EQ((*C)[0].Name, "libmid.so");
  EXPECT_EQ(normal((*C)[0].Path), T.at("lib/libmid.so"));
  EXPECT_EQ((*C)[0].NeededBy, T.at("bin/prog"));
  EXPECT_EQ(normal(foundFor(*C, "libdep.so.1")), T.at("deps/libdep.so.1"));
  EXPECT_NE(foundFor(*C, "libc.so.6"), "");
  EXPECT_NE(foundFor(*C, "libc.so.6"), "?");
  // Each library once.
  EXPECT_EQ(
      count_if(*C,
               [](const NeededLibrary &L) { return L.Name == "libc.so.6"; }),
      1);

  // LD_LIBRARY_PATH comes before a DT_RUNPATH.
  build(T, Dep, "-shared -fPIC -Wl,-soname,libdep.so.1", "ldpath/libdep.so.1");
  S.LibraryPath = {T.at("ldpath")};
  C = neededClosure(T.at("bin/prog"), S);
  ASSERT_TRUE(bool(C));
  EXPECT_EQ(foundFor(*C, "libdep.so.1"), T.at("ldpath/libdep.so.1"));
}

TEST(NeededClosure, RPathIsInheritedRunPathIsNot) {
  TempTree T;
  build(T, Dep, "-shared -fPIC -Wl,-soname,libdep.so.1", "deps/libdep.so.1");
  // No path of its own: libdep.so.1 is found through the program's.
  build(T, Mid,
        "-shared -fPIC -Wl,-soname,libmid.so -L" + T.at("deps") +
            " -l:libdep.so.1",
        "lib/libmid.so");
  std::string Link = "-L" + T.at("lib") + " -lmid -Wl,-rpath-link," +
                     T.at("deps") + " -Wl,-rpath,'$ORIGIN/../lib:$ORIGIN/../" +
                     "deps'";
  build(T, Main, Link + " -Wl,--disable-new-dtags", "bin/prog-rpath");
  build(T, Main, Link + " -Wl,--enable-new-dtags", "bin/prog-runpath");
  ASSERT_EQ(std::system(("'" + T.at("bin/prog-rpath") + "' x").c_str()), 0);
  // The loader does not find libdep.so.1 for the other: neither do we.
  ASSERT_NE(
      std::system(("'" + T.at("bin/prog-runpath") + "' x 2>/dev/null").c_str()),
      0);

  LoaderSearch S = LoaderSearch::fromSystem();
  S.LibraryPath.clear();
  auto R = neededClosure(T.at("bin/prog-rpath"), S);
  ASSERT_TRUE(bool(R)) << toString(R.takeError());
  EXPECT_EQ(normal(foundFor(*R, "libmid.so")), T.at("lib/libmid.so"));
  EXPECT_EQ(normal(foundFor(*R, "libdep.so.1")), T.at("deps/libdep.so.1"));

  auto N = neededClosure(T.at("bin/prog-runpath"), S);
  ASSERT_TRUE(bool(N)) << toString(N.takeError());
  EXPECT_EQ(normal(foundFor(*N, "libmid.so")), T.at("lib/libmid.so"));
  EXPECT_EQ(foundFor(*N, "libdep.so.1"), "") << "needed, found nowhere";

  // A DT_RPATH comes before LD_LIBRARY_PATH.
  build(T, Dep, "-shared -fPIC -Wl,-soname,libdep.so.1", "ldpath/libdep.so.1");
  S.LibraryPath = {T.at("ldpath")};
  R = neededClosure(T.at("bin/prog-rpath"), S);
  ASSERT_TRUE(bool(R));
  EXPECT_EQ(normal(foundFor(*R, "libdep.so.1")), T.at("deps/libdep.so.1"));
  N = neededClosure(T.at("bin/prog-runpath"), S);
  ASSERT_TRUE(bool(N));
  EXPECT_EQ(foundFor(*N, "libdep.so.1"), T.at("ldpath/libdep.so.1"));
}

TEST(NeededClosure, SkipsFilesOfAnotherKind) {
  TempTree T;
  build(T, MidAlone, "-shared -fPIC -Wl,-soname,libmid.so", "good/libmid.so");
  build(T, Main,
        "-L" + T.at("good") + " -lmid -Wl,--enable-new-dtags -Wl,-rpath," +
            T.at("bad") + ":" + T.at("good"),
        "bin/prog");
  // The first directory has a text file by that name: the loader passes
  // it over.
  ASSERT_FALSE(sys::fs::create_directories(T.at("bad")));
  std::ofstream(T.at("bad/libmid.so")) << "not ELF\n";
  auto C = neededClosure(T.at("bin/prog"), LoaderSearch());
  ASSERT_TRUE(bool(C)) << toString(C.takeError());
  EXPECT_EQ(foundFor(*C, "libmid.so"), T.at("good/libmid.so"));

  EXPECT_FALSE(bool(neededClosure(T.at("bad/libmid.so"), LoaderSearch())))
      << "not an ELF file";
}

TEST(SystemRuntime, CAndCxxRuntimesAreLeftOut) {
  EXPECT_TRUE(isSystemRuntime("/lib/x86_64-linux-gnu/libc.so.6"));
  EXPECT_TRUE(isSystemRuntime("/usr/lib/x86_64-linux-gnu/libstdc++.so.6"));
  EXPECT_TRUE(isSystemRuntime("/lib64/ld-linux-x86-64.so.2"));
  EXPECT_FALSE(isSystemRuntime("/usr/lib/x86_64-linux-gnu/libz.so.1"));
  EXPECT_FALSE(isSystemRuntime("/opt/lib/libcrypto.so.3"));
}

TEST(ScriptInterpreter, ShebangAndEnv) {
  TempTree T;
  std::ofstream(T.at("direct")) << "#!/bin/sh -e\necho\n";
  std::ofstream(T.at("env")) << "#!/usr/bin/env -S sh -e\necho\n";
  std::ofstream(T.at("none")) << "echo\n";
  EXPECT_EQ(sys::path::filename(scriptInterpreter(T.at("direct"))), "sh");
  EXPECT_EQ(sys::path::filename(scriptInterpreter(T.at("env"))), "sh");
  EXPECT_EQ(scriptInterpreter(T.at("none")), "");
  EXPECT_EQ(scriptInterpreter(T.at("missing")), "");
}

} // namespace
