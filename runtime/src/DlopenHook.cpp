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
/// constructors, as at startup. An inert runtime only forwards the call.
//===----------------------------------------------------------------------===//

#include "Late.h"
#include "Objects.h"
#include "decan/runtime.h"

#include <dlfcn.h>

extern "C" __attribute__((visibility("default"))) void *dlopen(const char *File,
                                                               int Mode) {
  using DlopenFn = void *(*)(const char *, int);
  static DlopenFn Next = reinterpret_cast<DlopenFn>(dlsym(RTLD_NEXT, "dlopen"));
  if (!Next)
    return nullptr; // no C library's dlopen to forward to
  if (!File || !decan_active())
    return Next(File, Mode);
  const char *Path = decan::rt::redirectLibrary(File);
  char Copy[4096];
  if (Path == File && decan::rt::Cfg.LateDlopen) {
    // Under --lib auto, a library that is not loaded yet gets its copy
    // from decan run (Late.h).
    if (void *Loaded = Next(File, RTLD_LAZY | RTLD_NOLOAD))
      dlclose(Loaded);
    else
      Path = decan::rt::lateLibraryCopy(File, Copy, sizeof(Copy));
  }
  void *Handle = Next(Path, Mode);
  if (!Handle && Path != File)
    Handle = Next(File, Mode); // the copy did not load: the original runs
  if (Handle)
    decan::rt::scanLoadedObjects();
  return Handle;
}
