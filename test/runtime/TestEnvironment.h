//===- TestEnvironment.h - The runtime's environment in tests --*- C++ -*-===//
//
// Part of decan. Test-only: the runtime reads its DECAN_* variables through
// a getenv function; tests hand it this map instead of the process's
// environment, and read back the JSON reports it writes.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TEST_RUNTIME_TESTENVIRONMENT_H
#define DECAN_TEST_RUNTIME_TESTENVIRONMENT_H

#include "MiniJson.h"
#include "Runtime.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace decan::test {

inline std::map<std::string, std::string> &fakeEnvironment() {
  static std::map<std::string, std::string> Env;
  return Env;
}

inline const char *fakeGetEnv(const char *Name) {
  auto &Env = fakeEnvironment();
  auto It = Env.find(Name);
  return It == Env.end() ? nullptr : It->second.c_str();
}

/// Restarts the runtime as a program started with exactly these variables.
inline void reinitializeRuntime(std::map<std::string, std::string> Env) {
  fakeEnvironment() = std::move(Env);
  decan::rt::reinitializeForTesting(fakeGetEnv);
}

/// Parses a report the runtime wrote; a malformed one fails the test.
inline bool readReport(const std::string &Path, minijson::Value &V) {
  std::ifstream In(Path);
  if (!In)
    return false;
  std::stringstream SS;
  SS << In.rdbuf();
  std::string Err;
  bool Ok = minijson::parse(SS.str(), V, Err);
  EXPECT_TRUE(Ok) << Path << ": " << Err;
  return Ok;
}

} // namespace decan::test

#endif
