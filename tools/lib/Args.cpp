//===- Args.cpp - Command-line options of decan's commands ----------------===//
//
// Part of decan.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/Args.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace decan::tool {

/// Help rows: the spellings in the first columns, the help from this one.
static constexpr size_t HelpColumn = 24;
/// Help lines stay within a terminal's width.
static constexpr size_t HelpWidth = 80;

std::string Option::spelling(StringRef Name) {
  return (Name.size() == 1 ? "-" : "--") + Name.str();
}

OptionTable::OptionTable(std::string Usage, std::string About,
                         std::string Notes)
    : Usage(std::move(Usage)), About(std::move(About)),
      Notes(std::move(Notes)) {
  // Read by helpAsked(): the table moves, no reader may point into it.
  add("help,h", "", "print this help and do nothing else",
      [](StringRef, StringRef) { return Error::success(); });
}

Option &OptionTable::add(StringRef Names, StringRef Meta, StringRef Help,
                         Option::Reader Read) {
  Option &O = Options.emplace_back();
  SmallVector<StringRef, 2> Parts;
  Names.split(Parts, ',', -1, /*KeepEmpty=*/false);
  for (StringRef N : Parts)
    O.Names.push_back(N.trim().str());
  O.Meta = Meta.str();
  O.Help = Help.str();
  O.Read = std::move(Read);
  return O;
}

Option &OptionTable::flag(StringRef Names, StringRef Help, bool &Set) {
  return add(Names, "", Help, [&Set](StringRef, StringRef) {
    Set = true;
    return Error::success();
  });
}

Option &OptionTable::text(StringRef Names, StringRef Meta, StringRef Help,
                          std::string &Value) {
  Option &O = add(Names, Meta, Help, [&Value](StringRef, StringRef V) {
    Value = V.str();
    return Error::success();
  });
  return O.defaultText(Value);
}

Option &OptionTable::number(StringRef Names, StringRef Meta, StringRef Help,
                            unsigned &Value) {
  Option &O =
      add(Names, Meta, Help, [&Value](StringRef Spelt, StringRef V) -> Error {
        if (!to_integer(V, Value, 10))
          return createStringError("option '%s' wants a number, got '%s'",
                                   Spelt.str().c_str(), V.str().c_str());
        return Error::success();
      });
  return O.defaultText(std::to_string(Value));
}

Option &OptionTable::list(StringRef Names, StringRef Meta, StringRef Help,
                          std::vector<std::string> &Values) {
  Option &O = add(Names, Meta, Help, [&Values](StringRef, StringRef V) {
    SmallVector<StringRef, 4> Items;
    V.split(Items, ',', -1, /*KeepEmpty=*/false);
    for (StringRef I : Items)
      Values.push_back(I.trim().str());
    return Error::success();
  });
  return O.defaultText(join(Values, ","));
}

Option &OptionTable::custom(StringRef Names, StringRef Meta, StringRef Help,
                            Option::Reader Read) {
  return add(Names, Meta, Help, std::move(Read));
}

const Option *OptionTable::find(StringRef Name) const {
  for (const Option &O : Options)
    if (is_contained(O.Names, Name))
      return &O;
  return nullptr;
}

bool OptionTable::has(StringRef Name) const {
  const Option *O = find(Name);
  return O && is_contained(Seen, O);
}

std::string OptionTable::didYouMean(StringRef Name) const {
  // The nearest spelling, if near enough to be a typo: two edits in a
  // short name ("--hepl"), a third of a long one's letters; never a guess
  // for one or two letters ("-x").
  std::string Best;
  unsigned BestDistance = Name.size() <= 2  ? 0
                          : Name.size() < 6 ? 3
                                            : Name.size() / 3 + 2;
  for (const Option &O : Options)
    for (const std::string &N : O.Names) {
      unsigned D =
          Name.edit_distance(N, /*AllowReplacements=*/true, BestDistance);
      // A prefix of a long spelling ("--extend") is a typo too.
      if (Name.size() >= 3 && StringRef(N).starts_with(Name))
        D = std::min<unsigned>(D, 1);
      if (D < BestDistance) {
        BestDistance = D;
        Best = N;
      }
    }
  return Best.empty() ? "" : "; did you mean '" + Option::spelling(Best) + "'?";
}

Error OptionTable::parse(int Argc, char **Argv, int First,
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
    // Errors name the option as it was spelt ("-o", "--loops").
    std::string Spelt = A.split('=').first.str();
    const Option *O = find(Name);
    if (!O)
      return createStringError("unknown option '%s'%s", A.str().c_str(),
                               didYouMean(Name).c_str());
    if (!O->takesValue() && HasValue)
      return createStringError("option '%s' takes no value", Spelt.c_str());
    if (O->takesValue() && !HasValue) {
      if (I + 1 >= Argc)
        return createStringError("option '%s' needs a value", Spelt.c_str());
      Value = Argv[++I];
    }
    if (Error E = O->Read(Spelt, Value))
      return E;
    if (!is_contained(Seen, O))
      Seen.push_back(O);
  }
  return Error::success();
}

std::vector<std::string> wrapText(StringRef Text, size_t Width) {
  std::vector<std::string> Lines;
  SmallVector<StringRef, 4> Paragraphs;
  Text.split(Paragraphs, '\n');
  for (StringRef P : Paragraphs) {
    SmallVector<StringRef, 16> Words;
    P.split(Words, ' ', -1, /*KeepEmpty=*/false);
    std::string Line;
    for (StringRef W : Words) {
      if (!Line.empty() && Line.size() + 1 + W.size() > Width) {
        Lines.push_back(std::move(Line));
        Line.clear();
      }
      Line += (Line.empty() ? "" : " ") + W.str();
    }
    Lines.push_back(std::move(Line));
  }
  return Lines;
}

/// One help row: \p Left padded to the help column, \p Help wrapped beside
/// it (below it when \p Left reaches the column).
static void printRow(raw_ostream &OS, StringRef Left, StringRef Help) {
  std::vector<std::string> Lines = wrapText(Help, HelpWidth - HelpColumn);
  OS << "  " << Left;
  size_t Used = 2 + Left.size();
  if (Used + 2 > HelpColumn) {
    OS << "\n";
    Used = 0;
  }
  for (const std::string &L : Lines) {
    OS.indent(HelpColumn - Used) << L << "\n";
    Used = 0;
  }
}

void OptionTable::printHelp(raw_ostream &OS) const {
  OS << "USAGE: " << Usage << "\n\n";
  if (!About.empty()) {
    for (const std::string &L : wrapText(About, HelpWidth))
      OS << L << "\n";
    OS << "\n";
  }
  OS << "OPTIONS:\n";
  for (const Option &O : Options) {
    // Short spellings first, as "-o, --output".
    std::vector<std::string> Spelt;
    for (const std::string &N : O.Names)
      Spelt.push_back(Option::spelling(N));
    llvm::stable_sort(Spelt, [](const std::string &A, const std::string &B) {
      return A.size() == 2 && B.size() != 2;
    });
    std::string Left = join(Spelt, ", ");
    std::string Help = O.Help;
    if (!O.Default.empty())
      Help += " (default " + O.Default + ")";
    printRow(OS, O.Meta.empty() ? Left : Left + " " + O.Meta, Help);
    for (const Option::Form &F : O.Forms)
      printRow(OS, Option::spelling(O.Names.front()) + " " + F.Meta, F.Help);
  }
  if (!Notes.empty()) {
    OS << "\n";
    for (const std::string &L : wrapText(Notes, HelpWidth))
      OS << L << "\n";
  }
}

} // namespace decan::tool
