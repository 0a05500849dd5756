//===- DlopenHook.cpp - dlopen, seen by the runtime -----------------------===//
//
// Part of decan. Free of LLVM; no exceptions. Built into libdecan_rt.so
// only: the shared runtime, linked by plugin-built programs or preloaded
// into rewritten ones, comes before libc in symbol lookup, so this dlopen
// interposes the C library's for the program and every library.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Libraries a program loads with dlopen (Python extension modules,
/// plugins) are measured like the others: a library named by `decan run
/// --lib` is opened as its rewritten copy even when the program names the
/// original by full path (Objects.h, DECAN_LIB_MAP), and after every dlopen
/// the new objects' rewritten headers are relocated and their loops
/// registered. Under `decan run --lib auto`, a library with no copy that
/// is not loaded yet is asked for (Late.h): decan run answers with a copy
/// to open instead. Plugin-built libraries register themselves from their
/// constructors, as at startup. An inert runtime only forwards the call,
/// after one step every call takes: a bare name not loaded yet is searched
/// in the calling object's DT_RPATH or DT_RUNPATH here (forwarded, the C
/// library sees this runtime as the caller and would miss them).
//===----------------------------------------------------------------------===//

#include "Late.h"
#include "Objects.h"
#include "State.h"
#include "decan/runtime.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

using DlopenFn = void *(*)(const char *, int);

/// The directory of \p Map's file ($ORIGIN) into \p Buf; false when unknown.
bool originOf(const struct link_map *Map, char *Buf, size_t Cap) {
  const char *Name = Map->l_name;
  char Exe[4096];
  if (!Name || !*Name) { // the executable
    ssize_t N = readlink("/proc/self/exe", Exe, sizeof(Exe) - 1);
    if (N <= 0)
      return false;
    Exe[N] = '\0';
    Name = Exe;
  }
  const char *Slash = strrchr(Name, '/');
  if (!Slash)
    return false;
  snprintf(Buf, Cap, "%.*s", (int)(Slash - Name), Name);
  return true;
}

/// The first directory of the search path \p List (DT_RPATH, DT_RUNPATH
/// or LD_LIBRARY_PATH; $ORIGIN is \p Origin, "" when unknown) that holds
/// \p Name, as \p Dir/\p Name in \p Buf; false when none does. An entry
/// with another token is skipped, as the loader skips it.
bool searchPath(const char *List, const char *Origin, const char *Name,
                char *Buf, size_t Cap) {
  while (List && *List) {
    size_t Len = strcspn(List, ":");
    char Dir[4096];
    size_t Out = 0;
    bool Ok = true;
    for (size_t I = 0; I < Len && Ok;) {
      if (List[I] == '$') {
        bool Braced = List[I + 1] == '{';
        const char *Tok = List + I + 1 + Braced;
        if (!strncmp(Tok, "ORIGIN", 6) && *Origin &&
            (!Braced || Tok[6] == '}')) {
          Out += snprintf(Dir + Out, sizeof(Dir) - Out, "%s", Origin);
          I += 1 + Braced + 6 + Braced;
        } else {
          Ok = false;
        }
      } else if (Out + 1 < sizeof(Dir)) {
        Dir[Out++] = List[I++];
      } else {
        Ok = false;
      }
      if (Out >= sizeof(Dir))
        Ok = false;
    }
    if (Ok) {
      Dir[Out] = '\0';
      snprintf(Buf, Cap, "%s/%s", Out ? Dir : ".", Name);
      struct stat St;
      if (stat(Buf, &St) == 0 && S_ISREG(St.st_mode))
        return true;
    }
    List += Len + (List[Len] == ':');
  }
  return false;
}

/// The search paths of \p Map: its DT_RUNPATH and DT_RPATH strings.
void pathsOf(const struct link_map *Map, const char **RunPath,
             const char **RPath) {
  *RunPath = *RPath = nullptr;
  const char *StrTab = nullptr;
  ElfW(Xword) RunOff = ~(ElfW(Xword))0, ROff = RunOff;
  for (const ElfW(Dyn) *D = Map->l_ld; D && D->d_tag != DT_NULL; ++D) {
    if (D->d_tag == DT_STRTAB)
      StrTab = reinterpret_cast<const char *>(D->d_un.d_ptr);
    else if (D->d_tag == DT_RUNPATH)
      RunOff = D->d_un.d_val;
    else if (D->d_tag == DT_RPATH)
      ROff = D->d_un.d_val;
  }
  if (!StrTab)
    return;
  // The loader relocates the dynamic section in place; an unrelocated
  // address is the file's.
  if (reinterpret_cast<ElfW(Addr)>(StrTab) < Map->l_addr)
    StrTab += Map->l_addr;
  if (RunOff != ~(ElfW(Xword))0)
    *RunPath = StrTab + RunOff;
  if (ROff != ~(ElfW(Xword))0)
    *RPath = StrTab + ROff;
}

/// A dlopen by bare name searches the calling object's DT_RPATH or
/// DT_RUNPATH; forwarded from here, the C library sees this runtime as the
/// caller (without either: it still searches the executable's DT_RPATH,
/// LD_LIBRARY_PATH, the cache), so the caller's own paths are searched
/// here, in the loader's order: its DT_RPATH when it has no DT_RUNPATH,
/// else LD_LIBRARY_PATH (left to the C library) and then its DT_RUNPATH.
/// The file found into \p Buf; false to leave the search to the C library.
bool searchCallerPaths(const char *Name, const void *Caller, char *Buf,
                       size_t Cap) {
  Dl_info Info;
  struct link_map *Map = nullptr;
  if (!dladdr1(Caller, &Info, reinterpret_cast<void **>(&Map),
               RTLD_DL_LINKMAP) ||
      !Map)
    return false;
  const char *RunPath, *RPath;
  pathsOf(Map, &RunPath, &RPath);
  if (!RunPath && !RPath)
    return false;
  char Origin[4096] = "";
  originOf(Map, Origin, sizeof(Origin));
  if (!RunPath)
    return searchPath(RPath, Origin, Name, Buf, Cap);
  if (searchPath(getenv("LD_LIBRARY_PATH"), "", Name, Buf, Cap))
    return false; // the C library finds it there first
  return searchPath(RunPath, Origin, Name, Buf, Cap);
}

/// Says once per copy that decan's copy \p Copy of \p Path did not load
/// (\p Why): on stderr, and in the report.
void sayCopyFailed(const char *Path, const char *Copy, const char *Why) {
  static pthread_mutex_t Mutex = PTHREAD_MUTEX_INITIALIZER;
  static char Said[8][512];
  static unsigned NumSaid;
  pthread_mutex_lock(&Mutex);
  bool Seen = false;
  for (unsigned I = 0; I < NumSaid && !Seen; ++I)
    Seen = !strncmp(Said[I], Copy, sizeof(Said[I]) - 1);
  if (!Seen && NumSaid < sizeof(Said) / sizeof(Said[0]))
    snprintf(Said[NumSaid++], sizeof(Said[0]), "%s", Copy);
  pthread_mutex_unlock(&Mutex);
  if (Seen)
    return;
  fprintf(stderr,
          "decan: warning: decan's copy %s of %s did not load (%s): the "
          "original runs, unmeasured\n",
          Copy, Path, Why);
  decan::rt::addWarning("decan's copy %s of %s did not load (%s): the "
                        "original runs, unmeasured",
                        Copy, Path, Why);
}

} // namespace

extern "C" __attribute__((visibility("default"))) void *dlopen(const char *File,
                                                               int Mode) {
  static DlopenFn Next = reinterpret_cast<DlopenFn>(dlsym(RTLD_NEXT, "dlopen"));
  if (!Next)
    return nullptr; // no C library's dlopen to forward to
  if (!File)
    return Next(File, Mode);
  const char *Path = File;
  char Found[4096], Copy[4096];
  bool Loaded = false;
  if (!strchr(File, '/')) {
    // Loaded already (by its name or DT_SONAME): the C library returns it.
    if (void *H = Next(File, RTLD_LAZY | RTLD_NOLOAD)) {
      dlclose(H);
      Loaded = true;
    } else if (searchCallerPaths(File, __builtin_return_address(0), Found,
                                 sizeof(Found))) {
      Path = Found;
    }
  }
  if (!decan_active())
    return Next(Path, Mode);
  const char *Open = decan::rt::redirectLibrary(Path);
  if (Open == Path && !Loaded && decan::rt::Cfg.LateDlopen) {
    // Under --lib auto, a library that is not loaded yet gets its copy
    // from decan run (Late.h).
    // (A bare name was looked up above.)
    void *H = strchr(File, '/') ? Next(File, RTLD_LAZY | RTLD_NOLOAD) : nullptr;
    if (H)
      dlclose(H);
    else
      Open = decan::rt::lateLibraryCopy(Path, Copy, sizeof(Copy));
  }
  void *Handle = Next(Open, Mode);
  if (!Handle && Open != Path) {
    // The copy did not load (gone from the cache, or broken): the original
    // runs, unmeasured, and the report says why.
    const char *Why = dlerror();
    sayCopyFailed(Path, Open, Why ? Why : "unknown error");
    Handle = Next(Path, Mode);
  }
  if (Handle)
    decan::rt::scanLoadedObjects();
  return Handle;
}
