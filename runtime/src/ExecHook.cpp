//===- ExecHook.cpp - exec, seen by the runtime ---------------------------===//
//
// Part of decan. Free of LLVM; no exceptions. Built into libdecan_rt.so
// only, which comes before libc in symbol lookup (as DlopenHook.cpp).
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A measured process that replaces itself with another program leaves
/// `decan.<pid>.exec` in DECAN_OUTPUT, naming that program: when the new
/// program has no decan runtime (it writes no report), `decan run` names it
/// in its warning about the child it could not measure. The exec itself is
/// the C library's; execl* and posix_spawn do not pass through here (the C
/// library calls its own execve), and leave no name.
//===----------------------------------------------------------------------===//

#include "State.h"
#include "decan/runtime.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

using namespace decan::rt;

/// Writes \p File's name into DECAN_OUTPUT/decan.<pid>.exec.
static void noteExec(const char *File) {
  if (!File || !decan_active())
    return;
  char Path[sizeof(Cfg.OutputDir) + 48];
  snprintf(Path, sizeof(Path), "%s/decan.%d.exec", Cfg.OutputDir,
           (int)getpid());
  int Fd = open(Path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (Fd < 0)
    return;
  ssize_t W = write(Fd, File, strlen(File));
  W = write(Fd, "\n", 1);
  (void)W;
  close(Fd);
}

template <typename Fn> static Fn next(const char *Name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, Name));
}

#define DECAN_EXPORT extern "C" __attribute__((visibility("default")))

DECAN_EXPORT int execve(const char *File, char *const Argv[],
                        char *const Envp[]) {
  using Fn = int (*)(const char *, char *const[], char *const[]);
  static Fn Next = next<Fn>("execve");
  noteExec(File);
  return Next ? Next(File, Argv, Envp) : -1;
}

DECAN_EXPORT int execv(const char *File, char *const Argv[]) {
  using Fn = int (*)(const char *, char *const[]);
  static Fn Next = next<Fn>("execv");
  noteExec(File);
  return Next ? Next(File, Argv) : -1;
}

DECAN_EXPORT int execvp(const char *File, char *const Argv[]) {
  using Fn = int (*)(const char *, char *const[]);
  static Fn Next = next<Fn>("execvp");
  noteExec(File);
  return Next ? Next(File, Argv) : -1;
}

DECAN_EXPORT int execvpe(const char *File, char *const Argv[],
                         char *const Envp[]) {
  using Fn = int (*)(const char *, char *const[], char *const[]);
  static Fn Next = next<Fn>("execvpe");
  noteExec(File);
  return Next ? Next(File, Argv, Envp) : -1;
}
