//===- LibraryCopies.cpp - The --lib libraries as the program loads them --===//
//
// Part of decan.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/LibraryCopies.h"
#include "decan/Tool/ElfFacts.h"
#include "decan/Tool/LoopTable.h"
#include "decan/Tool/RunTarget.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace llvm;

namespace decan::tool {

Expected<LibraryCopies> prepareLibraries(ArrayRef<std::string> Libs,
                                         StringRef TmpDir,
                                         const rewriter::RewriteOptions &RW) {
  LibraryCopies Out;
  if (Libs.empty())
    return Out;
  Out.LoaderDir = (TmpDir + "/ld-path").str();
  if (std::error_code EC = sys::fs::create_directories(Out.LoaderDir))
    return createStringError("cannot create '%s': %s", Out.LoaderDir.c_str(),
                             EC.message().c_str());
  std::map<std::string, std::string> ByName;
  std::string Map;
  unsigned N = 0;
  for (const std::string &Lib : Libs) {
    if (!sys::fs::exists(Lib))
      return createStringError("library '%s' not found", Lib.c_str());
    if (sys::fs::is_directory(Lib))
      return createStringError("library '%s' is a directory", Lib.c_str());
    if (Error E = checkReadable(Lib))
      return std::move(E);
    auto Name = sharedLibraryName(Lib);
    if (!Name)
      return Name.takeError();
    auto [It, New] = ByName.emplace(*Name, Lib);
    if (!New)
      return createStringError("libraries '%s' and '%s' are both loaded as "
                               "'%s'",
                               It->second.c_str(), Lib.c_str(), Name->c_str());
    SmallString<256> Real;
    if (std::error_code EC = sys::fs::real_path(Lib, Real))
      return createStringError("library '%s': %s", Lib.c_str(),
                               EC.message().c_str());
    std::string Dir = (TmpDir + "/lib" + Twine(++N)).str();
    std::string CacheProblem;
    auto Inst =
        rewriter::instrumentCached(Real, Dir, RW, nullptr, &CacheProblem);
    warnCacheProblem(CacheProblem);
    if (!Inst)
      return createStringError("library '%s' has no decan loop table (build "
                               "it with $(decan flags)) and cannot be "
                               "rewritten: %s",
                               Lib.c_str(), toString(Inst.takeError()).c_str());
    std::string To = (Out.LoaderDir + "/" + *Name);
    if (*Inst == Lib) {
      // Plugin-built: link to it, so that this very file is the one loaded.
      SmallString<256> Abs(Lib);
      if (std::error_code EC = sys::fs::make_absolute(Abs))
        return createStringError("'%s': %s", Lib.c_str(), EC.message().c_str());
      if (std::error_code EC = sys::fs::create_link(Abs, To))
        return createStringError("cannot link '%s': %s", To.c_str(),
                                 EC.message().c_str());
    } else {
      // The copy stays where it is (the cache keeps it for the next run).
      SmallString<256> Abs(*Inst);
      if (std::error_code EC = sys::fs::make_absolute(Abs))
        return createStringError("'%s': %s", Inst->c_str(),
                                 EC.message().c_str());
      if (std::error_code EC = sys::fs::create_link(Abs, To))
        return createStringError("cannot link '%s': %s", To.c_str(),
                                 EC.message().c_str());
      Out.Preload = true;
      sys::fs::file_status St;
      if (std::error_code EC = sys::fs::status(Real, St))
        return createStringError("library '%s': %s", Lib.c_str(),
                                 EC.message().c_str());
      Map += formatv("{0} {1} {2}\n", St.getUniqueID().getDevice(),
                     St.getUniqueID().getFile(), To)
                 .str();
    }
    auto Loops = readLoopTable(To);
    if (!Loops)
      return Loops.takeError();
    LibraryCopies::Lib &L = Out.Each.emplace_back();
    L.Path = Lib;
    L.Real = Real.str().str();
    L.Name = *Name;
    if (*Inst != Lib)
      L.Copy = *Inst;
    if (*Loops) {
      for (MetaLoop &ML : **Loops) {
        ML.Object = sys::path::filename(To).str();
        L.Ids.push_back(ML.Id);
        L.Measurable += ML.SkipReason.empty() && ML.VariantMask != 0;
        L.NotSelected += ML.SkipReason == "not selected";
      }
      append_range(Out.Loops, **Loops);
    }
  }
  if (!Map.empty()) {
    Out.MapFile = (TmpDir + "/lib-map").str();
    std::error_code EC;
    raw_fd_ostream OS(Out.MapFile, EC);
    if (!EC) {
      OS << Map;
      OS.close();
      EC = OS.error();
      OS.clear_error();
    }
    if (EC)
      return createStringError("cannot write '%s': %s", Out.MapFile.c_str(),
                               EC.message().c_str());
  }
  return Out;
}

} // namespace decan::tool
