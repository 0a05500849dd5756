//===- Args.cpp - Command-line options of decan's commands ----------------===//
//
// Part of decan.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/Args.h"

#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace decan::tool {

Error ArgParser::parse(int Argc, char **Argv, int First,
                       bool StopAtFirstPositional) {
  for (int I = First; I < Argc; ++I) {
    StringRef A = Argv[I];
    if (A == "--") {
      for (++I; I < Argc; ++I)
        Positional.push_back(Argv[I]);
      break;
    }
    if (!A.starts_with("-") || A == "-") {
      Positional.push_back(A.str());
      if (StopAtFirstPositional) {
        for (++I; I < Argc; ++I)
          Positional.push_back(Argv[I]);
        break;
      }
      continue;
    }
    StringRef Name = A.ltrim('-'), Value;
    bool HasValue = false;
    if (Name.contains('=')) {
      std::tie(Name, Value) = Name.split('=');
      HasValue = true;
    }
    std::string N = Name.str();
    // Errors name the option as it was spelt ("-o", "--loops").
    std::string Spelt = A.split('=').first.str();
    if (Flags.count(N)) {
      if (HasValue)
        return createStringError("option '%s' takes no value", Spelt.c_str());
      Seen.insert(N);
      continue;
    }
    if (!Valued.count(N))
      return createStringError("unknown option '%s'", A.str().c_str());
    if (!HasValue) {
      if (I + 1 >= Argc)
        return createStringError("option '%s' needs a value", Spelt.c_str());
      Value = Argv[++I];
    }
    Seen.insert(N);
    Values[N] = Value.str();
    AllValues[N].push_back(Value.str());
  }
  return Error::success();
}

std::string ArgParser::get(StringRef Name, StringRef Default) const {
  auto It = Values.find(Name.str());
  return It == Values.end() ? Default.str() : It->second;
}

std::vector<std::string> ArgParser::getAll(StringRef Name) const {
  auto It = AllValues.find(Name.str());
  return It == AllValues.end() ? std::vector<std::string>() : It->second;
}

Expected<unsigned> ArgParser::getUnsigned(StringRef Name,
                                          unsigned Default) const {
  if (!has(Name))
    return Default;
  unsigned V;
  if (!to_integer(get(Name), V, 10))
    return createStringError("option '--%s' wants a number, got '%s'",
                             Name.str().c_str(), get(Name).c_str());
  return V;
}

} // namespace decan::tool
