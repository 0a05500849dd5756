//===- Install.cpp - Where decan's pieces live ----------------------------===//
//
// Part of decan.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/Install.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstring>

using namespace llvm;

namespace decan::tool {

static int Anchor;

Expected<InstallLayout> findInstallLayout(const char *Argv0) {
  std::string Exe = sys::fs::getMainExecutable(Argv0, &Anchor);
  if (Exe.empty())
    return createStringError("cannot find the decan executable's path");
  SmallString<256> Prefix(sys::path::parent_path(sys::path::parent_path(Exe)));
  InstallLayout L;
  L.Prefix = Prefix.str().str();
  SmallString<256> P(Prefix);
  sys::path::append(P, "lib");
  L.LibDir = P.str().str();
  sys::path::append(P, "decan.so");
  L.Plugin = P.str().str();
  P = L.LibDir;
  sys::path::append(P, "libdecan_rt.so");
  L.Runtime = P.str().str();
  P = Prefix;
  sys::path::append(P, "include");
  L.IncludeDir = P.str().str();
  if (!sys::fs::exists(L.Plugin))
    return createStringError("the decan plugin is missing: expected '%s' "
                             "next to '%s'",
                             L.Plugin.c_str(), Exe.c_str());
  return L;
}

std::string shipCompileFlags(const InstallLayout &L) {
  // DECAN_PLUGIN_FLAGS: set once in the top-level CMakeLists.txt.
  std::string F = DECAN_PLUGIN_FLAGS;
  for (size_t At; (At = F.find("<plugin>")) != std::string::npos;)
    F.replace(At, strlen("<plugin>"), L.Plugin);
  return F;
}

std::string compileFlags(const InstallLayout &L) {
  std::string F = shipCompileFlags(L);
  if (sys::fs::is_directory(L.IncludeDir + "/decan"))
    F += " -I" + L.IncludeDir;
  return F;
}

std::string linkFlags(const InstallLayout &L) {
  // DECAN_LINK_LIBS: set once in the top-level CMakeLists.txt.
  return "-L" + L.LibDir + " -Wl,-rpath," + L.LibDir + " " DECAN_LINK_LIBS;
}

} // namespace decan::tool
