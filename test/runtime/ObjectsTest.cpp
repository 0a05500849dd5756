//===- ObjectsTest.cpp - Loaded objects and --lib redirections ------------===//
//
// Part of decan.
//
//===----------------------------------------------------------------------===//

#include "Objects.h"
#include "JsonOut.h"

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <fstream>
#include <stdio.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

using namespace decan::rt;

namespace {

struct TempDir {
  std::string Path;
  TempDir() {
    char T[] = "/tmp/decan-objects-test.XXXXXX";
    Path = mkdtemp(T);
  }
  ~TempDir() {
    std::string Cmd = "rm -rf '" + Path + "'";
    EXPECT_EQ(system(Cmd.c_str()), 0);
  }
};

TEST(Objects, MapRedirectsTheFileThroughAnySpelling) {
  TempDir D;
  std::string Real = D.Path + "/libx.so.1.0", Link = D.Path + "/libx.so.1";
  std::ofstream(Real) << "x";
  ASSERT_EQ(symlink("libx.so.1.0", Link.c_str()), 0);
  struct stat St;
  ASSERT_EQ(stat(Real.c_str(), &St), 0);
  std::string Map = D.Path + "/map";
  std::ofstream(Map) << "garbage line\n"
                     << St.st_dev << " " << St.st_ino << " /copies/libx.so.1\n";
  ASSERT_TRUE(loadLibraryMap(Map.c_str()));
  EXPECT_STREQ(redirectLibrary(Real.c_str()), "/copies/libx.so.1");
  EXPECT_STREQ(redirectLibrary(Link.c_str()), "/copies/libx.so.1");
  std::string Dotted = D.Path + "/./libx.so.1";
  EXPECT_STREQ(redirectLibrary(Dotted.c_str()), "/copies/libx.so.1");
  // A bare name is the loader's to search; other files stay themselves.
  EXPECT_STREQ(redirectLibrary("libx.so.1"), "libx.so.1");
  EXPECT_STREQ(redirectLibrary(Map.c_str()), Map.c_str());
  EXPECT_EQ(redirectLibrary(nullptr), nullptr);

  EXPECT_FALSE(loadLibraryMap((D.Path + "/missing").c_str()));
  EXPECT_STREQ(redirectLibrary(Real.c_str()), Real.c_str()) << "map replaced";
  EXPECT_TRUE(loadLibraryMap(""));
}

TEST(Objects, ScanListsTheLoadedObjectsOnce) {
  resetObjectsForTesting();
  scanLoadedObjects();
  scanLoadedObjects();
  JsonOut J(-1);
  J.beginObject();
  emitObjects(J);
  J.endObject();
  std::string Text = J.text();
  Dl_info Info;
  ASSERT_TRUE(dladdr(reinterpret_cast<void *>(&printf), &Info));
  std::string Libc = std::string("\"") + Info.dli_fname + "\"";
  size_t At = Text.find(Libc);
  ASSERT_NE(At, std::string::npos) << Text;
  EXPECT_EQ(Text.find(Libc, At + 1), std::string::npos) << "listed twice";
  EXPECT_EQ(Text.find("\"\""), std::string::npos) << "the executable is ''";
}

} // namespace
