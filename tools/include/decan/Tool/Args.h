//===- decan/Tool/Args.h - Command-line options of decan's commands -------===//
//
// Part of decan. A small GNU-style parser: `--name value`, `--name=value`,
// flags, positionals, and `--` after which everything is positional (the
// measured program's own options must never be read as decan's).
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TOOL_ARGS_H
#define DECAN_TOOL_ARGS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace decan::tool {

class ArgParser {
public:
  /// \p Valued: options taking a value; \p Flags: options without one.
  ArgParser(std::set<std::string> Valued, std::set<std::string> Flags)
      : Valued(std::move(Valued)), Flags(std::move(Flags)) {}

  /// Parses argv[First..Argc). When \p StopAtFirstPositional, the first
  /// positional and everything after it are positionals too.
  llvm::Error parse(int Argc, char **Argv, int First,
                    bool StopAtFirstPositional = false);

  bool has(llvm::StringRef Name) const { return Seen.count(Name.str()); }
  /// The last value of an option, or \p Default.
  std::string get(llvm::StringRef Name, llvm::StringRef Default = "") const;
  /// An unsigned value; error names the option.
  llvm::Expected<unsigned> getUnsigned(llvm::StringRef Name,
                                       unsigned Default) const;
  /// Every value an option was given, in order (repeatable options).
  std::vector<std::string> getAll(llvm::StringRef Name) const;
  const std::vector<std::string> &positionals() const { return Positional; }

private:
  std::set<std::string> Valued, Flags, Seen;
  std::map<std::string, std::string> Values;
  std::map<std::string, std::vector<std::string>> AllValues;
  std::vector<std::string> Positional;
};

} // namespace decan::tool

#endif // DECAN_TOOL_ARGS_H
