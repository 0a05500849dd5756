//===- SharedLibraryTest.cpp - libdecan_rt.so in a real C program ---------===//
//
// Part of decan. Runs Inputs/stub_program.c (linked like %decan_link does)
// as a child process: inert it must print exactly what the plain build
// prints and write nothing; active it must write a valid report.
//
//===----------------------------------------------------------------------===//

#include "MiniJson.h"

#include <gtest/gtest.h>

#include <dirent.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

struct RunResult {
  int Status = -1;
  std::string Out;
};

/// Runs `Prog` in `Dir` with exactly `Env`, capturing stdout.
RunResult runIn(const std::string &Prog, const std::string &Dir,
                std::vector<std::string> Env) {
  int Pipe[2];
  RunResult R;
  if (pipe(Pipe) != 0)
    return R;
  pid_t P = fork();
  if (P == 0) {
    dup2(Pipe[1], 1);
    dup2(Pipe[1], 2); // stderr too: an inert runtime prints nothing at all
    close(Pipe[0]);
    close(Pipe[1]);
    if (chdir(Dir.c_str()) != 0)
      _exit(98);
    std::vector<char *> E;
    for (auto &S : Env)
      E.push_back(S.data());
    E.push_back(nullptr);
    char *Argv[] = {const_cast<char *>(Prog.c_str()), nullptr};
    execve(Prog.c_str(), Argv, E.data());
    _exit(97);
  }
  close(Pipe[1]);
  char Buf[4096];
  ssize_t N;
  while ((N = read(Pipe[0], Buf, sizeof(Buf))) > 0)
    R.Out.append(Buf, (size_t)N);
  close(Pipe[0]);
  waitpid(P, &R.Status, 0);
  return R;
}

std::vector<std::string> listDir(const std::string &Dir) {
  std::vector<std::string> Names;
  for (auto &E : std::filesystem::directory_iterator(Dir))
    Names.push_back(E.path().filename());
  return Names;
}

struct TempDir {
  std::string Path;
  TempDir() {
    char T[] = "/tmp/decan-rt-so.XXXXXX";
    Path = mkdtemp(T) ? T : "/tmp";
  }
  ~TempDir() { std::filesystem::remove_all(Path); }
};

TEST(SharedLibrary, InertRunIsThePlainProgram) {
  TempDir D;
  RunResult Plain = runIn(DECAN_STUB_PLAIN, D.Path, {});
  RunResult Inert = runIn(DECAN_STUB_PROGRAM, D.Path, {"DECAN_MODE=rotate"});
  ASSERT_TRUE(WIFEXITED(Inert.Status));
  EXPECT_EQ(WEXITSTATUS(Inert.Status), 0);
  EXPECT_FALSE(Plain.Out.empty());
  EXPECT_EQ(Inert.Out, Plain.Out);
  EXPECT_TRUE(listDir(D.Path).empty()) << "an inert run writes no file";
}

TEST(SharedLibrary, ActiveRunWritesReportAndKeepsResults) {
  TempDir D;
  RunResult Plain = runIn(DECAN_STUB_PLAIN, D.Path, {});
  RunResult Run =
      runIn(DECAN_STUB_PROGRAM, D.Path, {"DECAN_LOOPS=all", "DECAN_REPS=5"});
  ASSERT_TRUE(WIFEXITED(Run.Status));
  EXPECT_EQ(WEXITSTATUS(Run.Status), 0);
  EXPECT_EQ(Run.Out, Plain.Out) << "variants never change program results";
  auto Files = listDir(D.Path);
  ASSERT_EQ(Files.size(), 1u);
  EXPECT_EQ(Files[0].rfind("decan.", 0), 0u);
  std::ifstream In(D.Path + "/" + Files[0]);
  std::stringstream SS;
  SS << In.rdbuf();
  minijson::Value R;
  std::string Err;
  ASSERT_TRUE(minijson::parse(SS.str(), R, Err)) << Err;
  EXPECT_EQ(R["status"].Str, "complete");
  const minijson::Value *Loop = nullptr, *Region = nullptr;
  for (auto &L : R["loops"].Arr) {
    if (L["id"].Str == "prog:L0")
      Loop = &L;
    if (L["id"].Str == "region:print")
      Region = &L;
  }
  ASSERT_NE(Loop, nullptr);
  ASSERT_NE(Region, nullptr);
  EXPECT_EQ((*Loop)["threads"][0]["whole_run"]["calls"].Num, 200)
      << "every call of the loop, in its REF run";
  const auto &Vs = (*Loop)["threads"][0]["variants"];
  ASSERT_EQ(Vs.Obj.size(), 6u);
  for (auto &V : Vs.Obj) {
    EXPECT_GE(V["calls"].Num - V["excluded"].Num, 5) << V.Key;
    EXPECT_EQ(V["records"].Arr.size(), V["calls"].Num) << V.Key;
    for (auto &Rec : V["records"].Arr) {
      EXPECT_GT(Rec[0].Num, 0);
      EXPECT_EQ(Rec[1].Num, 512);
    }
  }
}

} // namespace
