//===- OutputTest.cpp - Output paths never destroy what they name ---------===//
//
// Part of decan. writeOutput() on a regular file, a new path, symbolic links
// (to a file, dangling) and a FIFO, and checkOutputPath() on a directory.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/Output.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"

#include <filesystem>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace llvm;
using namespace decan::tool;

namespace {

struct OutputTest : ::testing::Test {
  SmallString<128> Dir;
  void SetUp() override {
    ASSERT_FALSE(sys::fs::createUniqueDirectory("decan-output-test", Dir));
  }
  // std::filesystem: LLVM's remove_directories leaves FIFOs (and so the
  // directory) behind.
  void TearDown() override {
    std::error_code EC;
    std::filesystem::remove_all(Dir.str().str(), EC);
  }
  std::string path(StringRef Name) const { return (Dir + "/" + Name).str(); }
  static std::string read(StringRef Path) {
    auto B = MemoryBuffer::getFile(Path, /*IsText=*/false,
                                   /*RequiresNullTerminator=*/false);
    return B ? (*B)->getBuffer().str() : "<unreadable>";
  }
  /// The names in Dir: no temporary file left behind.
  std::vector<std::string> names() const {
    std::vector<std::string> N;
    std::error_code EC;
    for (sys::fs::directory_iterator I(Dir, EC), E; I != E && !EC;
         I.increment(EC))
      N.push_back(sys::path::filename(I->path()).str());
    llvm::sort(N);
    return N;
  }
};

TEST_F(OutputTest, ReplacesARegularFileAndCreatesANewOne) {
  ASSERT_FALSE(bool(writeOutput(path("a.json"), "first")));
  ASSERT_FALSE(bool(writeOutput(path("a.json"), "second")));
  EXPECT_EQ(read(path("a.json")), "second");
  EXPECT_EQ(names(), std::vector<std::string>{"a.json"});
}

TEST_F(OutputTest, ASymlinkStaysOneAndItsTargetIsWritten) {
  ASSERT_FALSE(bool(writeOutput(path("target"), "old")));
  ASSERT_EQ(::symlink("target", path("link").c_str()), 0);
  ASSERT_EQ(::symlink("created", path("dangling").c_str()), 0);
  ASSERT_FALSE(bool(writeOutput(path("link"), "new")));
  ASSERT_FALSE(bool(writeOutput(path("dangling"), "made")));
  struct stat St;
  ASSERT_EQ(::lstat(path("link").c_str(), &St), 0);
  EXPECT_TRUE(S_ISLNK(St.st_mode));
  ASSERT_EQ(::lstat(path("dangling").c_str(), &St), 0);
  EXPECT_TRUE(S_ISLNK(St.st_mode));
  EXPECT_EQ(read(path("target")), "new");
  EXPECT_EQ(read(path("created")), "made");
  EXPECT_EQ(names(), (std::vector<std::string>{"created", "dangling", "link",
                                               "target"}));
}

TEST_F(OutputTest, AFifoIsWrittenInPlace) {
  std::string Fifo = path("fifo");
  ASSERT_EQ(::mkfifo(Fifo.c_str(), 0600), 0);
  ASSERT_FALSE(bool(checkOutputPath(Fifo))); // without blocking
  std::string Got;
  std::thread Reader([&] { Got = read(Fifo); });
  Error E = writeOutput(Fifo, "through the fifo");
  Reader.join();
  ASSERT_FALSE(bool(E)) << toString(std::move(E));
  EXPECT_EQ(Got, "through the fifo");
  struct stat St;
  ASSERT_EQ(::lstat(Fifo.c_str(), &St), 0);
  EXPECT_TRUE(S_ISFIFO(St.st_mode));
}

TEST_F(OutputTest, DirectoriesAndMissingDirectoriesAreOneLineErrors) {
  Error E = checkOutputPath(Dir);
  ASSERT_TRUE(bool(E));
  EXPECT_NE(toString(std::move(E)).find("it is a directory"),
            std::string::npos);
  E = checkOutputPath(path("no/such/dir/x.json"));
  ASSERT_TRUE(bool(E));
  EXPECT_NE(toString(std::move(E)).find("does not exist"), std::string::npos);
  E = writeOutput(path("no/x.json"), "x");
  ASSERT_TRUE(bool(E));
  consumeError(std::move(E));
  EXPECT_TRUE(names().empty());
}

TEST_F(OutputTest, RawDirectoryIsNeverReplaced) {
  ASSERT_FALSE(bool(writeOutput(path("file"), "keep")));
  Error E = prepareOutputDirectory(path("file"));
  ASSERT_TRUE(bool(E));
  consumeError(std::move(E));
  EXPECT_EQ(read(path("file")), "keep");
  ASSERT_FALSE(bool(prepareOutputDirectory(path("new/raw"))));
  EXPECT_TRUE(sys::fs::is_directory(path("new/raw")));
  ASSERT_EQ(::symlink("new/raw", path("rawlink").c_str()), 0);
  ASSERT_FALSE(bool(prepareOutputDirectory(path("rawlink"))));
}

TEST_F(OutputTest, APreviousDefaultOutputIsKeptAsOldUnlessNotAFile) {
  // A regular file moves to NAME.old (replacing an older one).
  ASSERT_FALSE(bool(writeOutput(path("decan.json"), "first")));
  ASSERT_FALSE(bool(writeOutput(path("decan.json.old"), "older")));
  ASSERT_FALSE(bool(keepPreviousOutput(path("decan.json"))));
  EXPECT_EQ(read(path("decan.json.old")), "first");
  EXPECT_EQ(names(), std::vector<std::string>{"decan.json.old"});
  // Nothing there: nothing to keep.
  ASSERT_FALSE(bool(keepPreviousOutput(path("decan.json"))));
  EXPECT_EQ(read(path("decan.json.old")), "first");
  // A link stays where it is (its target is written later), and so does
  // a FIFO.
  ASSERT_EQ(::symlink("decan.json.old", path("link.json").c_str()), 0);
  ASSERT_FALSE(bool(keepPreviousOutput(path("link.json"))));
  struct stat St;
  ASSERT_EQ(::lstat(path("link.json").c_str(), &St), 0);
  EXPECT_TRUE(S_ISLNK(St.st_mode));
  ASSERT_EQ(::mkfifo(path("fifo.json").c_str(), 0600), 0);
  ASSERT_FALSE(bool(keepPreviousOutput(path("fifo.json"))));
  ASSERT_EQ(::lstat(path("fifo.json").c_str(), &St), 0);
  EXPECT_TRUE(S_ISFIFO(St.st_mode));
}

} // namespace
