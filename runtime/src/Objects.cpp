//===- Objects.cpp - The objects a process loads, and --lib copies --------===//
//
// Part of decan. Free of LLVM; no exceptions. See Objects.h.
//
//===----------------------------------------------------------------------===//

#include "Objects.h"
#include "JsonOut.h"
#include "Runtime.h"

#include <atomic>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

namespace decan::rt {
namespace {

constexpr unsigned kMaxObjects = 1024;
constexpr unsigned kMaxRedirects = 64;

struct Redirect {
  uint64_t Dev = 0, Ino = 0;
  char *Copy = nullptr;
};

constinit pthread_mutex_t ScanMutex = PTHREAD_MUTEX_INITIALIZER;
/// Paths in first-seen order; an entry is written before the count that
/// publishes it, and never changes after.
constinit std::atomic<const char *> Paths[kMaxObjects] = {};
constinit std::atomic<unsigned> NumPaths{0};

constinit Redirect Redirects[kMaxRedirects] = {};
constinit unsigned NumRedirects = 0;

/// Caller holds ScanMutex.
void notePath(const char *Name) {
  // The executable's name is "", the vDSO's has no directory: the report's
  // argv and nothing, respectively, say more.
  if (!Name || !strchr(Name, '/'))
    return;
  unsigned N = NumPaths.load(std::memory_order_relaxed);
  for (unsigned I = 0; I < N; ++I)
    if (!strcmp(Paths[I].load(std::memory_order_relaxed), Name))
      return;
  if (N >= kMaxObjects)
    return;
  if (char *Copy = strdup(Name)) {
    Paths[N].store(Copy, std::memory_order_relaxed);
    NumPaths.store(N + 1, std::memory_order_release);
  }
}

int scanOne(struct dl_phdr_info *Info, size_t, void *Count) {
  notePath(Info->dlpi_name);
  *static_cast<unsigned *>(Count) += scanSegments(
      Info->dlpi_addr, Info->dlpi_phdr, Info->dlpi_phnum, Info->dlpi_name);
  return 0;
}

struct ObjectQuery {
  uintptr_t Addr;
  bool First = true; ///< dl_iterate_phdr lists the executable first
  const char *Name = nullptr;
};

int findObject(struct dl_phdr_info *Info, size_t, void *Data) {
  auto *Q = static_cast<ObjectQuery *>(Data);
  bool Executable = Q->First;
  Q->First = false;
  for (unsigned I = 0; I < Info->dlpi_phnum; ++I) {
    const ElfW(Phdr) &P = Info->dlpi_phdr[I];
    uintptr_t Start = Info->dlpi_addr + P.p_vaddr;
    if (P.p_type != PT_LOAD || Q->Addr < Start || Q->Addr >= Start + P.p_memsz)
      continue;
    Q->Name = Executable ? "" : Info->dlpi_name;
    return 1;
  }
  return 0;
}

} // namespace

const char *objectNameOf(const void *Addr) {
  ObjectQuery Q{reinterpret_cast<uintptr_t>(Addr)};
  dl_iterate_phdr(findObject, &Q);
  if (!Q.Name || !*Q.Name)
    return "";
  const char *Slash = strrchr(Q.Name, '/');
  char *Copy = strdup(Slash ? Slash + 1 : Q.Name);
  return Copy ? Copy : "";
}

bool loadLibraryMap(const char *Path) {
  for (unsigned I = 0; I < NumRedirects; ++I)
    free(Redirects[I].Copy);
  NumRedirects = 0;
  if (!Path || !*Path)
    return true;
  FILE *F = fopen(Path, "re");
  if (!F) {
    fprintf(stderr,
            "decan: warning: DECAN_LIB_MAP '%s' cannot be read; libraries "
            "opened with dlopen by path load unmeasured\n",
            Path);
    return false;
  }
  char Line[4200];
  while (NumRedirects < kMaxRedirects && fgets(Line, sizeof(Line), F)) {
    Line[strcspn(Line, "\n")] = 0;
    char *End = nullptr;
    unsigned long long Dev = strtoull(Line, &End, 10);
    if (!End || *End != ' ')
      continue;
    unsigned long long Ino = strtoull(End + 1, &End, 10);
    if (!End || *End != ' ' || !End[1])
      continue;
    Redirect &R = Redirects[NumRedirects];
    R.Dev = Dev;
    R.Ino = Ino;
    R.Copy = strdup(End + 1);
    if (R.Copy)
      ++NumRedirects;
  }
  fclose(F);
  return true;
}

const char *redirectLibrary(const char *Path) {
  // A bare name goes through the loader's search, which finds the copies
  // first (LD_LIBRARY_PATH).
  if (!Path || !strchr(Path, '/') || !NumRedirects)
    return Path;
  struct stat St;
  if (stat(Path, &St) != 0)
    return Path;
  for (unsigned I = 0; I < NumRedirects; ++I)
    if (Redirects[I].Dev == (uint64_t)St.st_dev &&
        Redirects[I].Ino == (uint64_t)St.st_ino)
      return Redirects[I].Copy;
  return Path;
}

unsigned scanLoadedObjects() {
  unsigned Count = 0;
  pthread_mutex_lock(&ScanMutex);
  dl_iterate_phdr(scanOne, &Count);
  pthread_mutex_unlock(&ScanMutex);
  return Count;
}

void emitObjects(JsonOut &J) {
  J.key("objects");
  J.beginArray();
  unsigned N = NumPaths.load(std::memory_order_acquire);
  for (unsigned I = 0; I < N; ++I)
    J.str(Paths[I].load(std::memory_order_relaxed));
  J.endArray();
}

void resetObjectsForTesting() {
  pthread_mutex_lock(&ScanMutex);
  NumPaths.store(0);
  pthread_mutex_unlock(&ScanMutex);
}

} // namespace decan::rt
