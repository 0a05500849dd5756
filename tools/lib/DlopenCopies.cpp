//===- DlopenCopies.cpp - Copies of libraries opened by dlopen ------------===//
//
// Part of decan. See decan/Tool/DlopenCopies.h.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/DlopenCopies.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cstring>
#include <vector>

using namespace llvm;

namespace decan::tool {

/// Writes \p Text to \p Path through a temporary name, so the runtime
/// never reads half of it.
static void writeAnswer(StringRef Path, StringRef Text) {
  std::string Tmp = (Path + ".tmp").str();
  {
    std::error_code EC;
    raw_fd_ostream OS(Tmp, EC);
    if (EC)
      return;
    OS << Text;
  }
  sys::fs::rename(Tmp, Path);
}

std::string DlopenCopies::copyOf(StringRef Path, StringRef Why) {
  SmallString<256> Real;
  if (sys::fs::real_path(Path, Real))
    return "";
  std::string R = Real.str().str();
  if (auto It = Copies.find(R); It != Copies.end())
    return It->second;
  if (Refused.count(R))
    return "";
  auto Copy = MakeCopy(R);
  if (!Copy) {
    Log << "decan: warning: --lib auto: " << Path << ", " << Why
        << ", is not measured: " << toString(Copy.takeError()) << "\n";
    Refused.insert(R);
    return "";
  }
  // The program may change directory: the runtime opens an absolute path.
  SmallString<256> Abs(*Copy);
  sys::fs::make_absolute(Abs);
  Log << "decan: --lib auto: measuring " << Path << ", " << Why << "\n";
  Copies[R] = Abs.str().str();
  return Copies[R];
}

std::string DlopenCopies::answer(StringRef Name, StringRef LoaderDir) {
  if (!Search)
    Search = LoaderSearch::fromSystem();
  std::string Path = findLibrary(Name, *Search);
  if (Path.empty() || isSystemRuntime(Path))
    return ""; // dlopen fails, or loads what is never measured
  std::string Copy = copyOf(Path, "opened with dlopen");
  if (Copy.empty() || LoaderDir.empty())
    return Copy;
  // What it needs, searched from the original (its $ORIGIN), goes where
  // the loader looks first: a name there already is a copy (or the
  // program's own library, loaded at start).
  auto Needed = neededClosure(Path, *Search);
  if (!Needed) {
    consumeError(Needed.takeError()); // copyOf read it
    return Copy;
  }
  for (const NeededLibrary &L : *Needed) {
    std::string To = (LoaderDir + "/" + L.Name).str();
    if (L.Path.empty() || isSystemRuntime(L.Path) || sys::fs::exists(To))
      continue;
    std::string Dep =
        copyOf(L.Path, ("needed by " + sys::path::filename(L.NeededBy) +
                        " (opened with dlopen)")
                           .str());
    if (!Dep.empty())
      if (std::error_code EC = sys::fs::create_link(Dep, To))
        Log << "decan: warning: --lib auto: cannot link '" << To
            << "': " << EC.message() << "\n";
  }
  return Copy;
}

void DlopenCopies::poll(StringRef Dir, StringRef LoaderDir) {
  std::error_code EC;
  std::vector<std::string> New;
  for (sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC)) {
    StringRef File = sys::path::filename(It->path());
    if (File.starts_with("dlopen.") && File.ends_with(".request") &&
        !Answered.count(File.str()))
      New.push_back(File.str());
  }
  for (const std::string &File : New) {
    Answered.insert(File);
    std::string Stem =
        (Dir + "/" + StringRef(File).drop_back(strlen(".request"))).str();
    auto Buf = MemoryBuffer::getFile(Dir + "/" + File, /*IsText=*/true);
    std::string Copy =
        Buf ? answer((*Buf)->getBuffer().split('\n').first.trim(), LoaderDir)
            : "";
    if (Copy.empty())
      writeAnswer(Stem + ".nocopy", "");
    else
      writeAnswer(Stem + ".copy", Copy + "\n");
  }
}

} // namespace decan::tool
