//===- decan/Tool/Args.h - Command-line options of decan's commands -------===//
//
// Part of decan. A command declares each of its options once, in an
// OptionTable: its spellings, the name of its value, its help, its default
// and how a value is read into the variable it sets. The table parses
// (GNU style: `--name value`, `--name=value`, `-o value`, flags,
// positionals, and `--` after which everything is positional: the measured
// program's own options must never be read as decan's) and writes --help.
//
// A default is the value the bound variable holds when the option is
// declared (RunOptions' member initialisers for `decan run`), so the help
// says what a run without the option does. Checks that involve several
// options, or a value's meaning, belong to the command's own validation
// (validateRunOptions); the table checks only that a value reads.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TOOL_ARGS_H
#define DECAN_TOOL_ARGS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <deque>
#include <functional>
#include <string>
#include <vector>

namespace decan::tool {

/// One option of a command, as its table declared it.
class Option {
public:
  /// Reads one occurrence's value ("" for a flag) into the bound variable;
  /// \p Spelt is the option as the user wrote it ("-o", "--loops"), for
  /// errors.
  using Reader =
      std::function<llvm::Error(llvm::StringRef Spelt, llvm::StringRef Value)>;

  /// The default --help shows when it is not a value of the variable
  /// ("standard error"); "" shows none.
  Option &defaultText(std::string Text) {
    Default = std::move(Text);
    return *this;
  }
  /// Another form of the option with its own help row (`--lib auto`).
  Option &form(std::string FormMeta, std::string FormHelp) {
    Forms.push_back({std::move(FormMeta), std::move(FormHelp)});
    return *this;
  }

  /// Spellings without dashes, the first the main one ("output", "o").
  llvm::ArrayRef<std::string> names() const { return Names; }
  /// The value's name in --help ("N", "FILE"); "" for a flag.
  llvm::StringRef meta() const { return Meta; }
  llvm::StringRef help() const { return Help; }
  /// What --help prints after "default " ("" when it prints none).
  llvm::StringRef defaultShown() const { return Default; }
  bool takesValue() const { return !Meta.empty(); }
  /// How the option is written in --help and in errors: "--reps", "-o".
  static std::string spelling(llvm::StringRef Name);

private:
  friend class OptionTable;
  struct Form {
    std::string Meta, Help;
  };
  std::vector<std::string> Names;
  std::string Meta, Help, Default;
  std::vector<Form> Forms;
  Reader Read;
};

/// One command's options, its usage line and its help text.
class OptionTable {
public:
  /// \p Usage: the line after "USAGE: "; \p About: what the command does,
  /// printed before the options; \p Notes: printed after them.
  explicit OptionTable(std::string Usage, std::string About = "",
                       std::string Notes = "");
  OptionTable(OptionTable &&) = default;
  OptionTable(const OptionTable &) = delete;

  /// \p Names: spellings separated by commas, the main one first
  /// ("output,o"). The adders bind the option to a variable; what the
  /// variable holds now is the default --help shows.
  Option &flag(llvm::StringRef Names, llvm::StringRef Help, bool &Set);
  /// A string; the last occurrence wins.
  Option &text(llvm::StringRef Names, llvm::StringRef Meta,
               llvm::StringRef Help, std::string &Value);
  /// An unsigned decimal number; the last occurrence wins.
  Option &number(llvm::StringRef Names, llvm::StringRef Meta,
                 llvm::StringRef Help, unsigned &Value);
  /// A comma-separated list, repeatable: every item of every occurrence,
  /// trimmed, in order (empty items dropped).
  Option &list(llvm::StringRef Names, llvm::StringRef Meta,
               llvm::StringRef Help, std::vector<std::string> &Values);
  /// Any other value, read by \p Read.
  Option &custom(llvm::StringRef Names, llvm::StringRef Meta,
                 llvm::StringRef Help, Option::Reader Read);

  /// Parses argv[First..Argc). When \p StopAtFirstPositional, the first
  /// positional and everything after it are positionals too. Errors are
  /// one line and name the option as spelt.
  llvm::Error parse(int Argc, char **Argv, int First,
                    bool StopAtFirstPositional = false);

  /// Whether the option named \p Name (any of its spellings) was given.
  bool has(llvm::StringRef Name) const;
  /// `--help` or `-h` was given: print the help and do nothing else.
  bool helpAsked() const { return has("help"); }
  const std::vector<std::string> &positionals() const { return Positional; }

  /// USAGE, about, OPTIONS (one row per option and form, each help
  /// wrapped beside its spelling, with "(default X)"), notes.
  void printHelp(llvm::raw_ostream &OS) const;
  const std::deque<Option> &options() const { return Options; }

private:
  Option &add(llvm::StringRef Names, llvm::StringRef Meta, llvm::StringRef Help,
              Option::Reader Read);
  const Option *find(llvm::StringRef Name) const;
  /// "; did you mean '--reps'?" for a mistyped \p Name, "" when no
  /// spelling is near.
  std::string didYouMean(llvm::StringRef Name) const;

  std::string Usage, About, Notes;
  std::deque<Option> Options; ///< stable addresses: adders return references
  std::vector<const Option *> Seen;
  std::vector<std::string> Positional;
};

/// Splits \p Text into lines of at most \p Width columns at spaces; a
/// newline in \p Text starts a new line.
std::vector<std::string> wrapText(llvm::StringRef Text, size_t Width);

} // namespace decan::tool

#endif // DECAN_TOOL_ARGS_H
