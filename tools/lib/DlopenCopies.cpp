//===- DlopenCopies.cpp - Copies of libraries opened by dlopen ------------===//
//
// Part of decan. See decan/Tool/DlopenCopies.h.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/DlopenCopies.h"
#include "decan/Tool/LoopTable.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

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

std::string DlopenCopies::answer(StringRef Name) {
  if (!Search)
    Search = LoaderSearch::fromSystem();
  std::string Path = findLibrary(Name, *Search);
  if (Path.empty() || isSystemRuntime(Path))
    return ""; // dlopen fails, or loads what is never measured
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
    Log << "decan: warning: --lib auto: " << Path
        << ", opened with dlopen, is not measured: "
        << toString(Copy.takeError()) << "\n";
    Refused.insert(R);
    return "";
  }
  Log << "decan: --lib auto: measuring " << Path << ", opened with dlopen\n";
  Copies[R] = *Copy;
  return *Copy;
}

void DlopenCopies::poll(StringRef Dir) {
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
        Buf ? answer((*Buf)->getBuffer().split('\n').first.trim()) : "";
    if (Copy.empty())
      writeAnswer(Stem + ".nocopy", "");
    else
      writeAnswer(Stem + ".copy", Copy + "\n");
  }
}

} // namespace decan::tool
