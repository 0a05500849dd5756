//===- RunHints.cpp - What a run did not measure, and why -----------------===//
//
// Part of decan.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/RunHints.h"
#include "decan/Tool/CommandLines.h"
#include "decan/Tool/ElfFacts.h"
#include "decan/Tool/Libraries.h"
#include "decan/Tool/LoopTable.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <map>
#include <set>

using namespace llvm;

namespace decan::tool {

static bool wasMeasured(const LoopReport &R) {
  return any_of(R.Variants, [](const std::optional<VariantStats> &V) {
    return V && V->Calls;
  });
}

/// The first loaded object the loader knows as \p Name (its file name or
/// DT_SONAME), "" when none.
static std::string loadedAs(ArrayRef<std::string> Objects, StringRef Name) {
  for (const std::string &P : Objects) {
    if (sys::path::filename(P) == Name)
      return P;
    auto Facts = readDynamicFacts(P);
    if (Facts && Facts->SoName == Name)
      return P;
    if (!Facts)
      consumeError(Facts.takeError());
  }
  return "";
}

void explainLibraries(Report &R, const LibraryCopies &Libs, StringRef ProgName,
                      raw_ostream &Log, bool Hint) {
  for (const LibraryCopies::Lib &L : Libs.Each) {
    std::string Shown = "'" + L.Path + "'";
    if (L.Real != L.Path)
      Shown += " (" + L.Real + ")";
    if (!L.Measurable && !L.NotSelected) {
      // A wrapper (Debian's libblas.so.3 over OpenBLAS) forwards to the
      // library that has the loops: name what it depends on.
      std::vector<std::string> Deps;
      if (auto Facts = readDynamicFacts(L.Real)) {
        for (const std::string &N : Facts->Needed)
          if (!isSystemRuntime(N)) {
            std::string At = loadedAs(R.Objects, N);
            Deps.push_back(At.empty() ? N : N + " (" + At + ")");
          }
      } else {
        consumeError(Facts.takeError());
      }
      Log << "decan: warning: library " << Shown
          << " has no loop decan can measure";
      if (!Deps.empty())
        Log << "; its work is likely in the libraries it loads: "
            << join(Deps, ", ") << ": name them with --lib";
      Log << "\n";
      continue;
    }
    std::set<std::string, std::less<>> Ids(L.Ids.begin(), L.Ids.end());
    if (any_of(R.Loops, [&](const LoopReport &LR) {
          return wasMeasured(LR) && Ids.count(LR.Id);
        }))
      continue;
    std::string Copy = Libs.LoaderDir + "/" + L.Name;
    std::string Other = loadedAs(R.Objects, L.Name);
    if (is_contained(R.Objects, Copy) ||
        any_of(R.Loops, [&](const LoopReport &LR) { return Ids.count(LR.Id); }))
      Log << "decan: warning: no loop of library " << Shown
          << " was measured: " << ProgName
          << " loaded it but called none of its measurable loops twice (a "
             "loop's first call is a warm-up)\n";
    else if (!Other.empty())
      Log << "decan: warning: no loop of library " << Shown
          << " was measured: " << ProgName << " loaded '" << L.Name
          << "' from '" << Other
          << "', not decan's copy (a DT_RPATH takes precedence over "
             "LD_LIBRARY_PATH): give that file to --lib\n";
    else
      Log << "decan: warning: no loop of library " << Shown
          << " was measured: " << ProgName << " never loaded it as '" << L.Name
          << "'\n";
  }

  // Where is the rest of the time? The part of the program's own time the
  // measured loops cover (Report::Coverage, over every run): below half,
  // most of it is elsewhere; very short runs (under 20 ms) say nothing.
  // (--lib auto lists what it did not measure itself.)
  if (!Hint)
    return;
  bool None = none_of(R.Loops, wasMeasured);
  auto Hz = R.Machine.getNumber("tsc_hz");
  double Seconds = Hz && *Hz > 0 ? R.ProcessCycles / *Hz : 0;
  if (!None && (!R.Coverage || *R.Coverage >= 0.5 || Seconds < 0.02))
    return;
  std::vector<std::string> Candidates;
  for (const std::string &P : R.Objects)
    if (!isSystemRuntime(P) &&
        (Libs.LoaderDir.empty() ||
         !StringRef(P).starts_with(Libs.LoaderDir + "/")) &&
        none_of(Libs.Each,
                [&](const LibraryCopies::Lib &L) { return L.Real == P; }))
      Candidates.push_back(sys::path::filename(P).str() + " (" + P + ")");
  if (Candidates.empty())
    return;
  std::string Text;
  raw_string_ostream TS(Text);
  if (None)
    TS << "no loop of " << ProgName << " was measured; its time";
  else
    TS << formatv("the measured loops cover {0:F0}% of {1}'s time; the rest",
                  *R.Coverage * 100, ProgName);
  TS << " is likely in the libraries it loaded: " << join(Candidates, ", ")
     << ": measure them with --lib PATH[,PATH...] or --lib auto";
  Log << "decan: warning: " << Text << "\n";
  // The HTML page shows it too, and keeps it through decan report.
  R.Config["libraries_hint"] = Text;
}

void listUnmeasured(const Report &R, const LibraryCopies &Libs,
                    const DlopenCopies &Dlopen, raw_ostream &Log) {
  std::vector<std::string> Names, Paths;
  for (const std::string &P : R.Objects) {
    if (isSystemRuntime(P) ||
        (!Libs.LoaderDir.empty() &&
         StringRef(P).starts_with(Libs.LoaderDir + "/")) ||
        any_of(Libs.Each,
               [&](const LibraryCopies::Lib &L) {
                 return L.Copy == P || sys::fs::equivalent(L.Real, P);
               }) ||
        any_of(Dlopen.copies(),
               [&](const auto &C) { return C.first == P || C.second == P; }))
      continue;
    Names.push_back(sys::path::filename(P).str());
    Paths.push_back(P);
  }
  if (!Names.empty())
    Log << "decan: not measured: loaded with dlopen during the run: "
        << join(Names, ", ") << " (rerun with --lib " << join(Paths, ",")
        << ")\n";
}

std::string whyNoLoopInstrumented(ArrayRef<MetaLoop> Loops, StringRef Binary) {
  if (Loops.empty() || any_of(Loops, [](const MetaLoop &L) {
        return L.SkipReason.empty() && L.VariantMask;
      }))
    return "";
  // The reasons, most frequent first ("irreducible control flow (2)").
  std::map<std::string, unsigned> Count;
  for (const MetaLoop &L : Loops)
    ++Count[L.SkipReason.empty() ? "no variant built" : L.SkipReason];
  if (Count.size() == 1 && Count.begin()->first == OptNoneReason)
    return formatv("'{0}' was built at -O0 (or without an -O flag: a CMake "
                   "build without CMAKE_BUILD_TYPE): none of its {1} loop{2} "
                   "is instrumented; build with -O2",
                   Binary, Loops.size(), Loops.size() == 1 ? "" : "s")
        .str();
  std::vector<std::pair<std::string, unsigned>> ByCount(Count.begin(),
                                                        Count.end());
  llvm::stable_sort(ByCount, [](const auto &A, const auto &B) {
    return A.second > B.second;
  });
  std::string Why;
  for (const auto &[Reason, N] : ByCount)
    Why += (Why.empty() ? "" : "; ") + Reason + formatv(" ({0})", N).str();
  return formatv("none of the {0} loop{1} of '{2}' is instrumented: {3}",
                 Loops.size(), Loops.size() == 1 ? "" : "s", Binary, Why)
      .str();
}

std::string noLocationNote(const Report &R) {
  unsigned Missing = 0;
  for (const LoopReport &L : R.Loops)
    Missing +=
        !L.isRegion() && L.File.empty() && (L.RunCalls || wasMeasured(L));
  if (!Missing)
    return "";
  return formatv("no -g: {0} measured loop{1} no file:line ('at ?'): "
                 "build with -g (or -gline-tables-only) to see where "
                 "{2} in the source",
                 Missing, Missing == 1 ? " has" : "s have",
                 Missing == 1 ? "it is" : "they are")
      .str();
}

void explainNotBuilt(const Report &R, const RunOptions &O, raw_ostream &Log) {
  uint32_t Missing = 0;
  unsigned Loops = 0, Short = 0;
  for (const LoopReport &L : R.Loops) {
    // Regions are REF only; a mask of 0: skipped, or late variants.
    if (L.isRegion() || !L.VariantMask)
      continue;
    ++Loops;
    // The runtime's word: asked, and the producer made no copy (not an
    // empty or unsupported one, which has its own reason).
    uint32_t Lacks = 0;
    for (Variant V : O.Variants)
      if (auto U = L.Unavailable.find(variantName(V));
          U != L.Unavailable.end() && U->second == "not-emitted")
        Lacks |= 1u << unsigned(V);
    Short += Lacks != 0;
    Missing |= Lacks;
  }
  if (!Missing)
    return;
  std::vector<Variant> Names;
  bool OtherThanLists = false;
  for (Variant V : O.Variants)
    if (Missing >> unsigned(V) & 1) {
      Names.push_back(V);
      VariantSet S = variantInfo(V).Set;
      OtherThanLists |= !(S == VariantSet::Extended && O.Extended) &&
                        !(S == VariantSet::Groups && O.Groups);
    }
  // The options that build what this run rotates.
  std::string Flags;
  if (OtherThanLists) {
    Flags = " --variants=" + (O.Variants.size() == NumVariants
                                  ? std::string("all")
                                  : variantNames(O.Variants, ","));
  } else {
    if (O.Extended)
      Flags += " --extended";
    if (O.Groups)
      Flags += " --groups";
  }
  Log << formatv("decan: {0} not built in {1} of {2} loop(s): not measured; "
                 "rebuild with $(decan flags{3})\n",
                 variantNames(Names, ","), Short, Loops, Flags);
}

} // namespace decan::tool
