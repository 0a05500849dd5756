//===- Libraries.cpp - The libraries a program loads ----------------------===//
//
// Part of decan. See decan/Tool/Libraries.h.
//
//===----------------------------------------------------------------------===//

#include "decan/Tool/Libraries.h"
#include "decan/Rewriter/Binary.h"
#include "decan/Tool/ElfFacts.h"
#include "decan/Tool/LoopTable.h"
#include "decan/Tool/RunTarget.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"

#include <cstring>
#include <deque>
#include <set>

using namespace llvm;

namespace decan::tool {

namespace {
/// Reads a little-endian uint32 at \p Off, 0 past the end.
uint32_t read32(StringRef B, size_t Off) {
  uint32_t V = 0;
  if (Off + 4 <= B.size())
    std::memcpy(&V, B.data() + Off, 4);
  return V;
}

/// Splits a colon-separated search path; an empty entry is the current
/// directory, as for the loader.
std::vector<std::string> splitSearchPath(StringRef List, StringRef Seps) {
  std::vector<std::string> Out;
  SmallVector<StringRef, 8> Parts;
  List.split(Parts, Seps.front(), -1, /*KeepEmpty=*/true);
  for (StringRef P : Parts) {
    SmallVector<StringRef, 4> Sub;
    P.split(Sub, Seps.back(), -1, /*KeepEmpty=*/true);
    for (StringRef S : Sub)
      Out.push_back(S.empty() ? "." : S.str());
  }
  return Out;
}

/// True when \p Path is an x86-64 ELF shared library the loader would
/// take (a program is not).
bool isLoadableLibrary(StringRef Path) {
  if (!sys::fs::is_regular_file(Path))
    return false;
  auto Facts = readDynamicFacts(Path);
  if (!Facts) {
    consumeError(Facts.takeError());
    return false;
  }
  return Facts->Type == ELF::ET_DYN && !Facts->Program;
}

/// The first directory of \p Dirs that holds a loadable \p Name.
std::string searchDirs(ArrayRef<std::string> Dirs, StringRef Name) {
  for (const std::string &D : Dirs) {
    SmallString<256> P(D);
    sys::path::append(P, Name);
    if (isLoadableLibrary(P))
      return P.str().str();
  }
  return "";
}

/// An object of the closure, as the search needs it.
struct Loaded {
  std::string Path;
  std::string OriginDir;                   ///< its $ORIGIN
  std::vector<std::string> RPath, RunPath; ///< expanded
  int Parent = -1; ///< the object that needed it (-1: none)
};

std::vector<std::string> expandAll(StringRef List, StringRef OriginDir,
                                   const LoaderSearch &S) {
  std::vector<std::string> Out;
  if (List.empty())
    return Out;
  for (const std::string &E : splitSearchPath(List, ":"))
    if (auto X = expandLoaderTokens(E, OriginDir, S))
      Out.push_back(std::move(*X));
  return Out;
}
} // namespace

LoaderSearch LoaderSearch::fromSystem() {
  LoaderSearch S;
  if (auto P = sys::Process::GetEnv("LD_LIBRARY_PATH"); P && !P->empty())
    for (const std::string &E : splitSearchPath(*P, ":;"))
      if (auto X = expandLoaderTokens(E, "", S))
        S.LibraryPath.push_back(std::move(*X));
  if (auto Buf = MemoryBuffer::getFile("/etc/ld.so.cache", /*IsText=*/false,
                                       /*RequiresNullTerminator=*/false))
    S.Cache = parseLdSoCache((*Buf)->getBuffer());
  if (!sys::fs::is_directory("/lib/x86_64-linux-gnu") &&
      !sys::fs::is_directory("/usr/lib/x86_64-linux-gnu"))
    S.Lib = "lib64";
  return S;
}

std::map<std::string, std::string, std::less<>>
parseLdSoCache(StringRef Bytes) {
  std::map<std::string, std::string, std::less<>> Out;
  StringRef New = Bytes;
  // The old format first (glibc before 2.32 wrote both): 16 bytes of
  // header, 12 per entry, its strings, then the new format aligned to 8.
  if (Bytes.starts_with("ld.so-1.7.0")) {
    size_t Off = 16 + size_t(read32(Bytes, 12)) * 12;
    size_t At = Bytes.find("glibc-ld.so.cache", Off);
    if (At == StringRef::npos)
      return Out;
    New = Bytes.substr(At);
  }
  if (!New.starts_with("glibc-ld.so.cache1.1"))
    return Out;
  // cache_file_new: magic and version (20 bytes), nlibs, len_strings,
  // flags and padding, extension_offset, 3 unused words: 48 bytes; then
  // 24-byte entries {flags, key, value, osversion, hwcap}. Offsets are
  // from the header's start.
  uint32_t N = read32(New, 20);
  constexpr size_t Header = 48, Entry = 24;
  if (Header + size_t(N) * Entry > New.size())
    return Out;
  auto Str = [&](uint32_t Off) -> StringRef {
    if (Off >= New.size())
      return "";
    return StringRef(New.data() + Off,
                     strnlen(New.data() + Off, New.size() - Off));
  };
  // Entries for a glibc-hwcaps subdirectory (hwcap != 0) count only where
  // no plain one names the library.
  for (bool HwCaps : {false, true})
    for (uint32_t I = 0; I < N; ++I) {
      size_t E = Header + size_t(I) * Entry;
      uint32_t Flags = read32(New, E);
      uint64_t HwCap = read32(New, E + 16) | uint64_t(read32(New, E + 20))
                                                 << 32;
      // FLAG_X8664_LIB64 with FLAG_ELF or FLAG_ELF_LIBC6.
      if ((Flags & 0xff00) != 0x0300 ||
          ((Flags & 0xff) != 1 && (Flags & 0xff) != 3) ||
          (HwCap != 0) != HwCaps)
        continue;
      StringRef Key = Str(read32(New, E + 4)), Value = Str(read32(New, E + 8));
      if (!Key.empty() && !Value.empty())
        Out.emplace(Key.str(), Value.str());
    }
  return Out;
}

std::optional<std::string> expandLoaderTokens(StringRef Entry,
                                              StringRef OriginDir,
                                              const LoaderSearch &S) {
  return rewriter::expandLoaderTokens(Entry, OriginDir, S.Lib, S.Platform);
}

std::string findLibrary(StringRef Name, const LoaderSearch &S) {
  if (Name.contains('/'))
    return isLoadableLibrary(Name) ? Name.str() : "";
  if (std::string P = searchDirs(S.LibraryPath, Name); !P.empty())
    return P;
  if (auto It = S.Cache.find(Name);
      It != S.Cache.end() && isLoadableLibrary(It->second))
    return It->second;
  return searchDirs(S.DefaultDirs, Name);
}

Expected<std::vector<NeededLibrary>> neededClosure(StringRef Program,
                                                   const LoaderSearch &S) {
  auto Root = readDynamicFacts(Program);
  if (!Root)
    return Root.takeError();
  // The program's $ORIGIN is where it really is (the kernel's path,
  // symlinks resolved); a library's is the directory it was found in.
  SmallString<256> Real;
  if (sys::fs::real_path(Program, Real))
    Real = Program;
  std::vector<Loaded> Objects;
  std::vector<DynamicFacts> Facts;
  auto Add = [&](StringRef Path, StringRef OriginDir, DynamicFacts F,
                 int Parent) {
    Loaded L;
    L.Path = Path.str();
    L.OriginDir = OriginDir.str();
    L.RPath = expandAll(F.RPath, OriginDir, S);
    L.RunPath = expandAll(F.RunPath, OriginDir, S);
    L.Parent = Parent;
    Objects.push_back(std::move(L));
    Facts.push_back(std::move(F));
  };
  Add(Program, sys::path::parent_path(Real), std::move(*Root), -1);

  std::vector<NeededLibrary> Out;
  // Names already loaded: each as asked for and as its DT_SONAME.
  std::set<std::string, std::less<>> Known;
  if (!Facts[0].SoName.empty())
    Known.insert(Facts[0].SoName);
  for (size_t I = 0; I < Objects.size(); ++I) {
    std::vector<std::string> Needed = Facts[I].Needed;
    for (const std::string &Name : Needed) {
      if (Known.count(Name))
        continue;
      Known.insert(Name);
      std::string Found;
      if (Name.find('/') != std::string::npos) {
        Found = isLoadableLibrary(Name) ? Name : "";
      } else {
        // DT_RPATH of the object and of those that loaded it, unless the
        // object has a DT_RUNPATH; each object's only without its own.
        if (Objects[I].RunPath.empty())
          for (int K = int(I); K >= 0 && Found.empty(); K = Objects[K].Parent)
            if (Objects[K].RunPath.empty())
              Found = searchDirs(Objects[K].RPath, Name);
        if (Found.empty())
          Found = searchDirs(S.LibraryPath, Name);
        if (Found.empty())
          Found = searchDirs(Objects[I].RunPath, Name);
        if (Found.empty()) {
          auto It = S.Cache.find(Name);
          if (It != S.Cache.end() && isLoadableLibrary(It->second))
            Found = It->second;
        }
        if (Found.empty())
          Found = searchDirs(S.DefaultDirs, Name);
      }
      if (Found.empty()) {
        Out.push_back({Name, "", Objects[I].Path});
        continue;
      }
      auto F = readDynamicFacts(Found);
      if (!F) {
        consumeError(F.takeError()); // isLoadableLibrary read it
        continue;
      }
      if (!F->SoName.empty()) {
        if (F->SoName != Name && Known.count(F->SoName))
          continue; // loaded already under another name
        Known.insert(F->SoName);
      }
      Out.push_back({Name, Found, Objects[I].Path});
      Add(Found, sys::path::parent_path(Found), std::move(*F), int(I));
    }
  }
  return Out;
}

std::string scriptInterpreter(StringRef Script) {
  auto Buf = MemoryBuffer::getFileSlice(Script, 256, 0);
  if (!Buf)
    return "";
  StringRef Line = (*Buf)->getBuffer().split('\n').first;
  if (!Line.consume_front("#!"))
    return "";
  SmallVector<StringRef, 4> Words;
  Line.split(Words, ' ', -1, /*KeepEmpty=*/false);
  if (Words.empty())
    return "";
  std::string Prog = Words[0].trim().str();
  if (sys::path::filename(Prog) == "env") {
    auto It = find_if(drop_begin(Words),
                      [](StringRef W) { return !W.starts_with("-"); });
    if (It == Words.end())
      return "";
    auto P = sys::findProgramByName(It->trim());
    Prog = P ? *P : "";
  }
  return !Prog.empty() && isELF(Prog) ? Prog : "";
}

bool isSystemRuntime(StringRef Path) {
  StringRef Name = sys::path::filename(Path);
  static const char *const Prefixes[] = {
      "ld-linux",       "libc.so",      "libm.so",      "libmvec.so",
      "libpthread.so",  "libdl.so",     "librt.so",     "libresolv.so",
      "libutil.so",     "libanl.so",    "libstdc++.so", "libgcc_s.so",
      "libc++.so",      "libc++abi.so", "libunwind.so", "libatomic.so",
      "libdecan_rt.so", "libpfm.so",    "linux-vdso",   "linux-gate"};
  return any_of(Prefixes, [&](const char *P) { return Name.starts_with(P); });
}

std::vector<std::string> discoverLibraries(ArrayRef<std::string> Cmd,
                                           raw_ostream &Log) {
  std::string Bin = Cmd[0];
  if (isLauncher(Bin)) {
    Bin.clear();
    for (const std::string &A : drop_begin(Cmd))
      if (!StringRef(A).starts_with("-") && sys::fs::is_regular_file(A) &&
          isELF(A)) {
        Bin = A;
        break;
      }
    if (Bin.empty())
      Bin = scriptInterpreter(Cmd[0]);
  }
  std::string ProgName = sys::path::filename(Cmd[0]).str();
  std::vector<std::string> Libs;
  if (Bin.empty()) {
    Log << "decan: --lib auto: " << ProgName
        << " is no ELF program: only the libraries it loads with dlopen "
           "are measured\n";
    return Libs;
  }
  auto Closure = neededClosure(Bin, LoaderSearch::fromSystem());
  if (!Closure) {
    Log << "decan: warning: --lib auto: " << toString(Closure.takeError())
        << "\n";
    return Libs;
  }
  for (const NeededLibrary &L : *Closure) {
    if (L.Path.empty())
      Log << "decan: warning: --lib auto: " << L.Name << ", needed by "
          << L.NeededBy << ", is nowhere the dynamic loader looks\n";
    else if (!isSystemRuntime(L.Path))
      Libs.push_back(L.Path);
  }
  if (Libs.empty())
    Log << "decan: --lib auto: " << ProgName
        << " links no library besides the C and C++ runtimes\n";
  else
    Log << "decan: --lib auto: measuring the libraries " << ProgName
        << " links: " << join(Libs, ", ") << "\n";
  return Libs;
}

} // namespace decan::tool
