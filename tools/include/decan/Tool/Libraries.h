//===- decan/Tool/Libraries.h - The libraries a program loads ---*- C++ -*-===//
//
// Part of decan. Which shared libraries a program loads at start-up, read
// from the files as the dynamic loader reads them (ld.so(8)), without
// running the program: `decan run --lib auto` measures them.
//
//===----------------------------------------------------------------------===//

#ifndef DECAN_TOOL_LIBRARIES_H
#define DECAN_TOOL_LIBRARIES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace decan::tool {

/// Where the loader looks for a DT_NEEDED name besides the paths of the
/// objects that need it (DT_RPATH, DT_RUNPATH).
struct LoaderSearch {
  std::vector<std::string> LibraryPath; ///< LD_LIBRARY_PATH, in order
  /// /etc/ld.so.cache: the x86-64 entries, name to path (the first wins).
  std::map<std::string, std::string, std::less<>> Cache;
  /// The loader's own directories, last.
  std::vector<std::string> DefaultDirs = {"/lib/x86_64-linux-gnu",
                                          "/usr/lib/x86_64-linux-gnu",
                                          "/lib64",
                                          "/usr/lib64",
                                          "/lib",
                                          "/usr/lib"};
  std::string Lib = "lib/x86_64-linux-gnu"; ///< what $LIB expands to
  std::string Platform = "x86_64";          ///< what $PLATFORM expands to

  /// This process's: its LD_LIBRARY_PATH, /etc/ld.so.cache, and $LIB as
  /// this system lays out its libraries (Debian's multiarch, else lib64).
  static LoaderSearch fromSystem();
};

/// The x86-64 entries of an /etc/ld.so.cache image (glibc's
/// "glibc-ld.so.cache1.1" format, after an optional old "ld.so-1.7.0"
/// part); empty when \p Bytes is neither.
std::map<std::string, std::string, std::less<>>
parseLdSoCache(llvm::StringRef Bytes);

/// \p Entry of a DT_RPATH, DT_RUNPATH or LD_LIBRARY_PATH with $ORIGIN
/// (\p OriginDir: the directory of the object that names it), $LIB and
/// $PLATFORM (also spelt ${ORIGIN}...) expanded; nullopt when it names
/// another token (the loader skips such an entry).
std::optional<std::string> expandLoaderTokens(llvm::StringRef Entry,
                                              llvm::StringRef OriginDir,
                                              const LoaderSearch &S);

/// One shared library of a closure: the name asked for, the file the
/// loader would load ("" when it finds none), who asked for it.
struct NeededLibrary {
  std::string Name, Path, NeededBy;
};

/// The DT_NEEDED closure of \p Program (a program or a shared library), in
/// the loader's breadth-first order, each library once (by the name asked
/// for and by DT_SONAME). Each name is searched as the loader does: the
/// DT_RPATH of the object that needs it and of the objects that loaded
/// that one (unless it has a DT_RUNPATH), LD_LIBRARY_PATH, its DT_RUNPATH,
/// ld.so.cache, the default directories; a candidate that is not an
/// x86-64 ELF file is passed over. An error when \p Program cannot be read.
llvm::Expected<std::vector<NeededLibrary>>
neededClosure(llvm::StringRef Program, const LoaderSearch &S);

/// Where a dlopen of \p Name finds the library when no object's own paths
/// apply: \p Name itself when it contains a '/', else LD_LIBRARY_PATH,
/// ld.so.cache and the default directories. "" when nowhere.
std::string findLibrary(llvm::StringRef Name, const LoaderSearch &S);

/// The ELF program a `#!` script runs (`#!/usr/bin/env NAME`: NAME found
/// in PATH), "" when \p Script is no such script.
std::string scriptInterpreter(llvm::StringRef Script);

/// Libraries `--lib auto` and the hints leave out: the C and C++ runtimes
/// (rewriting what decan's own runtime runs on gains nothing) and decan's.
bool isSystemRuntime(llvm::StringRef Path);

/// `--lib auto`: the libraries the measured binary of \p Cmd (the program,
/// a launcher's program, a script's interpreter) loads at start-up, its
/// DT_NEEDED closure read from the files (the program does not run: it
/// runs once, measured); not the C and C++ runtimes. Libraries loaded with
/// dlopen are asked for while it runs (DlopenCopies.h). Says on \p Log
/// what it found.
std::vector<std::string> discoverLibraries(llvm::ArrayRef<std::string> Cmd,
                                           llvm::raw_ostream &Log);

} // namespace decan::tool

#endif // DECAN_TOOL_LIBRARIES_H
