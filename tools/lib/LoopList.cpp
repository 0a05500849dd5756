//===- LoopList.cpp - decan list's one line per loop ----------------------===//
//
// Part of decan. See decan/Tool/LoopList.h.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/LoopList.h"
#include "decan/InstrKnowledge/VariantTable.h"
#include "decan/Tool/LoopNames.h"
#include "decan/Tool/Render.h"
#include "decan/Tool/VariantArray.h"
#include "decan/abi_names.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <map>

using namespace llvm;

namespace decan::tool {

/// \p S without its trailing qualifiers (" const", " &", " noexcept").
static StringRef dropQualifiers(StringRef S) {
  for (bool Again = true; Again;) {
    Again = false;
    for (StringRef Q : {" const", " volatile", " &&", " &", " noexcept"})
      if (S.consume_back(Q))
        Again = true;
    S = S.rtrim();
  }
  return S;
}

std::string shortFunctionName(StringRef Demangled, size_t Max) {
  std::string Name = Demangled.str();
  // Spaces inside one scope's name, not between return type and name.
  for (auto [From, To] :
       {std::pair<StringRef, StringRef>{"(anonymous namespace)", "{anon}"},
        {"operator()", "operator{}"}}) {
    for (size_t P = Name.find(From); P != std::string::npos;
         P = Name.find(From, P + To.size()))
      Name.replace(P, From.size(), To.str());
  }
  // Template arguments become "<...>", parameter lists go.
  std::string Out;
  unsigned Angle = 0, Paren = 0;
  for (size_t I = 0; I < Name.size(); ++I) {
    char C = Name[I];
    // operator<, operator<<=, operator->: the symbol, not a bracket.
    if (StringRef(Name).substr(I).starts_with("operator") && !Angle && !Paren) {
      size_t E = I + 8;
      while (E < Name.size() && StringRef("<>=-!+*/%&|^~[]").contains(Name[E]))
        ++E;
      Out += Name.substr(I, E - I);
      I = E - 1;
      continue;
    }
    if (C == '(' && !Angle)
      ++Paren;
    else if (C == ')' && Paren && !Angle)
      --Paren;
    else if (C == '<' && !Paren) {
      if (!Angle++)
        Out += "<...>";
    } else if (C == '>' && Angle && !Paren)
      --Angle;
    else if (!Angle && !Paren)
      Out += C;
  }
  StringRef S = dropQualifiers(StringRef(Out).trim());
  // The name is the last word: what precedes it is a return type.
  S = S.rsplit(' ').second.empty() ? S : S.rsplit(' ').second;
  std::string Short = S.str();
  size_t P = 0;
  while ((P = Short.find("operator{}", P)) != std::string::npos)
    Short.replace(P, 10, "operator()");
  // Too long: the innermost scopes and the name stay.
  while (Short.size() > Max) {
    size_t Cut =
        Short.find("::", StringRef(Short).starts_with("...::") ? 5 : 0);
    if (Cut == std::string::npos)
      break;
    Short = "...::" + Short.substr(Cut + 2);
  }
  return Short;
}

/// Whether \p L's variant \p V is missing for a reason worth naming: it
/// was asked of the build (mask bit), and it is not merely empty for want
/// of its work (no division for NO_DIV, no store for NO_STORE...).
static bool worthNaming(const MetaLoop &L, unsigned V) {
  if (L.available(V) || !(L.VariantMask >> V & 1))
    return false;
  uint32_t St = L.MInfo.status[V], Why = L.MInfo.why[V];
  bool FeedsControl = Why == DECAN_WHY_MEMORY_FEEDS_CONTROL ||
                      Why == DECAN_WHY_ARITH_FEEDS_CONTROL ||
                      Why == DECAN_WHY_ALL_CONTROL;
  return St != DECAN_VARIANT_EMPTY || FeedsControl;
}

std::vector<std::string> groupedReasons(const MetaLoop &L) {
  // Reasons in the order of their first variant.
  std::vector<std::pair<std::string, std::string>> Groups; // reason, names
  for (unsigned V = 1; V < NumVariants; ++V) {
    if (!worthNaming(L, V))
      continue;
    uint32_t Why = L.MInfo.why[V];
    std::string Reason = Why ? decan_variant_why_text(Why)
                             : decan_variant_status_text(L.MInfo.status[V]);
    auto G = find_if(Groups, [&](const auto &P) { return P.first == Reason; });
    std::string Name(variantName(Variant(V)));
    if (G == Groups.end())
      Groups.emplace_back(Reason, Name);
    else
      G->second += ", " + Name;
  }
  std::vector<std::string> Out;
  for (const auto &[Reason, Names] : Groups)
    Out.push_back(Names + " not built: " + Reason);
  return Out;
}

/// What the VARIANTS column says of \p L.
static std::string variantsText(const MetaLoop &L) {
  if (!L.SkipReason.empty())
    return "not instrumented: " + L.SkipReason;
  if (StringRef(L.Id).starts_with("region:"))
    return L.VariantMask ? "REF (region)" : "-";
  // GROUPING's copies: how many groups, not each name.
  std::string Built;
  unsigned Groups = 0;
  for (unsigned V = 1; V < NumVariants; ++V) {
    if (!L.available(V))
      continue;
    if (int G = variantGroup(Variant(V)); G >= 0)
      Groups = std::max<unsigned>(Groups, G + 1);
    else
      Built += "," + std::string(variantName(Variant(V)));
  }
  if (Groups)
    Built +=
        formatv(", {0} memory group{1}", Groups, Groups == 1 ? "" : "s").str();
  std::vector<std::string> Why = groupedReasons(L);
  if (Built.empty()) {
    // A search or a pointer chase: every variant lost its work to the
    // exit test's and the addresses' slices. Said once.
    if (!Why.empty() && all_of(seq(1u, unsigned(NumVariants)), [&](unsigned V) {
          uint32_t W = L.MInfo.why[V];
          return !worthNaming(L, V) || W == DECAN_WHY_MEMORY_FEEDS_CONTROL ||
                 W == DECAN_WHY_ARITH_FEEDS_CONTROL ||
                 W == DECAN_WHY_ALL_CONTROL;
        }))
      return "REF only: all its work feeds the exit test or the addresses "
             "(a search or a pointer chase); measure the code around it as "
             "a region (plugin builds, --regions) to see what bounds it";
    // One reason for all: say it once.
    if (Why.size() == 1)
      return "REF only: " + StringRef(Why[0]).split(": ").second.str();
    return "REF only" + (Why.empty() ? "" : ": " + join(Why, "; "));
  }
  return "REF" + Built + (Why.empty() ? "" : "; " + join(Why, "; "));
}

std::string nestedNamePrefix(StringRef Mangled) {
  if (!Mangled.consume_front("_ZN"))
    return "";
  Mangled.consume_front("K");
  std::string Out = Mangled.consume_front("St") ? "std" : "";
  unsigned Len;
  while (!Mangled.empty() && isDigit(Mangled[0]) &&
         !Mangled.consumeInteger(10, Len) && Len <= Mangled.size()) {
    Out += (Out.empty() ? "" : "::") + Mangled.take_front(Len).str();
    Mangled = Mangled.drop_front(Len);
    if (Mangled.starts_with("I")) {
      Out += "<...>";
      break;
    }
  }
  return Out.empty() || Out == "std" ? "" : Out;
}

void printLoopSummary(raw_ostream &OS, const std::vector<MetaLoop> &Loops) {
  struct Row {
    std::string Name, Location, Bytes, Step, Variants;
  };
  // Names --loops takes: a C++ function's short (LoopNames.h).
  std::vector<std::string> Names = loopNames(loopIdentities(Loops));
  std::vector<Row> Rows;
  size_t NameW = 4, LocW = 8;
  unsigned WithVariants = 0, RefOnly = 0, Skipped = 0;
  uint32_t Asked = 0;
  for (auto [L, Name] : zip(Loops, Names)) {
    Row R;
    R.Name = Name;
    // The file's name: its directory is in --verbose.
    R.Location = sourceLocation(sys::path::filename(L.File).str(), L.Line);
    R.Bytes = L.MInfo.loop_bytes[DECAN_REF]
                  ? std::to_string(L.MInfo.loop_bytes[DECAN_REF])
                  : "-";
    R.Step = L.IterationStep > 1 ? std::to_string(L.IterationStep) : "";
    R.Variants = variantsText(L);
    NameW = std::max(NameW, std::min<size_t>(R.Name.size(), 48));
    LocW = std::max(LocW, std::min<size_t>(R.Location.size(), 32));
    bool Instrumented = L.SkipReason.empty() && L.VariantMask;
    Skipped += !Instrumented;
    if (Instrumented) {
      bool Any = any_of(seq(1u, unsigned(NumVariants)),
                        [&](unsigned V) { return L.available(V); });
      (Any ? WithVariants : RefOnly) += 1;
      Asked |= L.VariantMask;
    }
    Rows.push_back(std::move(R));
  }
  OS << formatv("{0} {1} {2,5} {3,4}  {4}\n", left_justify("LOOP", NameW),
                left_justify("LOCATION", LocW), "BYTES", "STEP", "VARIANTS");
  for (const Row &R : Rows) {
    OS << formatv("{0} {1} {2,5} {3,4}  {4}", left_justify(R.Name, NameW),
                  left_justify(R.Location, LocW), R.Bytes, R.Step, R.Variants)
       << "\n";
  }
  OS << formatv("{0} loop{1}: {2} with variants, {3} REF only, {4} not "
                "instrumented\n",
                Loops.size(), Loops.size() == 1 ? "" : "s", WithVariants,
                RefOnly, Skipped);
  // Variants no loop was built with: the build did not ask for them.
  std::string Absent;
  for (unsigned V = 1; V < NumVariants; ++V)
    if (WithVariants + RefOnly && !(Asked >> V & 1) &&
        variantGroup(Variant(V)) < 0 && Variant(V) != Variant::NO_CALL)
      Absent +=
          (Absent.empty() ? "" : ", ") + std::string(variantName(Variant(V)));
  if (!Absent.empty())
    OS << "not in this build: " << Absent
       << " (decan flags --extended, --groups or --variants build them)\n";
  if (any_of(Loops, [](const MetaLoop &L) { return L.File.empty(); }))
    OS << "LOCATION '?': no debug information (build with -g or "
          "-gline-tables-only for file:line)\n";
  OS << "per-variant detail, calls and instruction subsets: decan list "
        "--verbose\n";
}

} // namespace decan::tool
