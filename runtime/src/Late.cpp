//===- Late.cpp - Late variants: requests and late packs ------------------===//
//
// Part of decan. Free of LLVM; no exceptions. See Late.h.
//
//===----------------------------------------------------------------------===//

#include "Late.h"
#include "Runtime.h"

#include "decan/tsc.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace decan::rt {

namespace {

constexpr unsigned kMaxLateModules = 16;

struct LateModule {
  decan_rewritten_header *H = nullptr;
  decan_loop_desc *Descs = nullptr;
  uintptr_t Range = 0;
  char Request[1200] = {}, Pack[1200] = {};
  bool Requested = false, Installed = false, Failed = false;
};

LateModule Modules[kMaxLateModules];
std::atomic<unsigned> NumModules{0};
/// Serializes requests and installs (a busy lock: the caller goes on).
pthread_mutex_t LateMutex = PTHREAD_MUTEX_INITIALIZER;
/// TSC of the next look at the late directory.
std::atomic<uint64_t> NextLook{0};

uint64_t nowTsc() { return decan_tsc_stop(); }

/// The name of the file \p Path is, symbolic links followed (decan run
/// links a library's copy under the name the program asks for); the
/// executable's when it is empty.
const char *moduleName(const char *Path, char *Buf, size_t Cap) {
  if (!Path || !*Path) {
    ssize_t N = readlink("/proc/self/exe", Buf, Cap - 1);
    Buf[N > 0 ? N : 0] = '\0';
    Path = Buf;
  } else if (char *Real = realpath(Path, nullptr)) {
    snprintf(Buf, Cap, "%s", Real);
    free(Real);
    Path = Buf;
  }
  const char *Slash = strrchr(Path, '/');
  return Slash ? Slash + 1 : Path;
}

/// Writes the ids of \p M's loops that ran to its request file (through a
/// temporary name and a rename, so decan run never reads half of it).
void writeRequest(LateModule &M, bool OnlyIfAny = false) {
  if (OnlyIfAny) {
    bool Any = false;
    for (uint32_t I = 0; I < M.H->count && !Any; ++I) {
      auto *L = static_cast<LoopState *>(M.Descs[I].runtime_state);
      Any = L && L->LateWaiting && L->LateCalls.load(std::memory_order_relaxed);
    }
    if (!Any)
      return;
  }
  M.Requested = true;
  char Tmp[1300];
  snprintf(Tmp, sizeof(Tmp), "%s.tmp%d", M.Request, (int)getpid());
  FILE *F = fopen(Tmp, "we");
  if (!F) {
    addWarning("cannot write the late-variant request %s", Tmp);
    return;
  }
  for (uint32_t I = 0; I < M.H->count; ++I) {
    auto *L = static_cast<LoopState *>(M.Descs[I].runtime_state);
    if (L && L->LateWaiting && L->LateCalls.load(std::memory_order_relaxed))
      fprintf(F, "%s\n", L->Id);
  }
  bool Ok = fclose(F) == 0;
  if (!Ok || rename(Tmp, M.Request) != 0) {
    unlink(Tmp);
    addWarning("cannot write the late-variant request %s", M.Request);
  }
}

/// Registers the pack's unwind rules (\p EhFrame: a loaded .eh_frame) with
/// the unwinder the program's C++ runtime uses, so that an exception thrown
/// by a callee of a late copy passes through it, and backtrace() sees the
/// loop's function. Looked up, not linked: a frame registered in a private
/// copy of the unwinder would be invisible to the program's. None loaded:
/// no C++ exception to unwind.
void registerFrames(const void *EhFrame) {
  using RegisterFn = void (*)(const void *);
  auto Register =
      reinterpret_cast<RegisterFn>(dlsym(RTLD_DEFAULT, "__register_frame"));
  if (Register)
    Register(EhFrame);
}

/// Maps \p M's pack over its late range, registers its unwind rules and
/// gives its loops their copies. Caller holds LateMutex.
void install(LateModule &M) {
  int Fd = open(M.Pack, O_RDONLY | O_CLOEXEC);
  if (Fd < 0)
    return; // not there yet
  M.Installed = true;
  decan_late_pack_header P;
  decan_late_entry *E = nullptr;
  const char *Why = nullptr;
  uint64_t RangeSize = M.H->late_size;
  if (pread(Fd, &P, sizeof(P), 0) != (ssize_t)sizeof(P) ||
      memcmp(P.magic, "DECANLP1", 8) != 0 || P.abi_version != DECAN_ABI_VERSION)
    Why = "not a late pack of this decan";
  else if (P.late_offset != M.H->late_offset || P.late_size != RangeSize ||
           P.base_count != M.H->count)
    Why = "made for another copy";
  else if (P.ro_size % 4096 || P.ro_offset % 4096 || P.scratch_offset % 4096 ||
           P.scratch_size % 4096 || P.ro_size > RangeSize ||
           P.scratch_offset < P.ro_size || P.scratch_offset > RangeSize ||
           P.scratch_size > RangeSize - P.scratch_offset ||
           P.count > M.H->count || P.eh_frame_size < 4 ||
           P.eh_frame_offset % 4 || P.eh_frame_offset > P.ro_size ||
           P.eh_frame_size > P.ro_size - P.eh_frame_offset)
    Why = "bad layout";
  if (!Why) {
    size_t Bytes = (size_t)P.count * sizeof(decan_late_entry);
    E = static_cast<decan_late_entry *>(malloc(Bytes ? Bytes : 1));
    if (!E || pread(Fd, E, Bytes, (off_t)P.entries_offset) != (ssize_t)Bytes)
      Why = "truncated";
  }
  for (uint32_t K = 0; !Why && K < P.count; ++K)
    if (E[K].desc_index >= M.H->count || E[K].record_offset >= P.ro_size ||
        E[K].minfo_offset + sizeof(decan_machine_info) > P.ro_size ||
        E[K].scratch_offset < P.scratch_offset ||
        E[K].scratch_offset + E[K].scratch_size >
            P.scratch_offset + P.scratch_size)
      Why = "an entry outside the pack";
  // The range is the image's own (reserved by the loader, nothing runs
  // there yet): map the code, then the zero-filled scratch areas.
  if (!Why && P.ro_size &&
      mmap(reinterpret_cast<void *>(M.Range), P.ro_size, PROT_READ | PROT_EXEC,
           MAP_PRIVATE | MAP_FIXED, Fd, (off_t)P.ro_offset) == MAP_FAILED)
    Why = "cannot map its code";
  if (!Why && P.scratch_size &&
      mmap(reinterpret_cast<void *>(M.Range + P.scratch_offset), P.scratch_size,
           PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS, -1,
           0) == MAP_FAILED)
    Why = "cannot map its scratch areas";
  close(Fd);
  // The unwinder reads entries up to a zero length: the last word.
  uint32_t Last = 1;
  if (!Why)
    memcpy(&Last,
           reinterpret_cast<const char *>(M.Range + P.eh_frame_offset +
                                          P.eh_frame_size - 4),
           4);
  if (!Why && Last != 0)
    Why = "bad unwind rules";
  if (!Why)
    registerFrames(reinterpret_cast<const void *>(M.Range + P.eh_frame_offset));
  if (Why) {
    M.Failed = true;
    addWarning("late pack %s: %s; its loops stay unmeasured", M.Pack, Why);
    free(E);
    return;
  }
  uint64_t Now = nowTsc();
  pthread_mutex_lock(&Reg.Mutex);
  for (uint32_t K = 0; K < P.count; ++K) {
    decan_loop_desc *D = &M.Descs[E[K].desc_index];
    auto *Old = static_cast<LoopState *>(D->runtime_state);
    if (!Old || !Old->LateWaiting || !isLateBaseLoop(D))
      continue;
    D->minfo = reinterpret_cast<const decan_machine_info *>(M.Range +
                                                            E[K].minfo_offset);
    D->scratch = reinterpret_cast<void *>(M.Range + E[K].scratch_offset);
    D->scratch_size = E[K].scratch_size;
    D->bound_mask = E[K].bound_mask;
    // The record first: a call that sees the new state (and may get a
    // copy from begin_call) must find it (abi.h, late_record).
    D->late_record =
        (int32_t)(int64_t)(M.Range + E[K].record_offset - (uintptr_t)D);
    D->variant_mask = E[K].variant_mask;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    D->runtime_state = nullptr; // newLoop registers it again
    LoopState *New = newLoop(D, /*IsRegion=*/false);
    if (!New) {
      D->runtime_state = Old; // the table is full: it stays waiting
      continue;
    }
    New->CallsBeforeLate = Old->LateCalls.load(std::memory_order_relaxed);
    New->LateSinceTsc = Now;
    Old->Superseded.store(true, std::memory_order_release);
    D->countdown = 0;
    D->active = New->Selected && New->Plan.N > 0 ? 1 : 0;
  }
  pthread_mutex_unlock(&Reg.Mutex);
  free(E);
}

/// Installs the packs there and (\p Requests) writes the requests that
/// are due. Caller holds LateMutex.
void lookNow(uint64_t Now, bool Requests = true) {
  unsigned N = NumModules.load(std::memory_order_acquire);
  double Elapsed = Facts.TscHz > 0 && Now > Facts.TscStart
                       ? (double)(Now - Facts.TscStart) * 1e3 / Facts.TscHz
                       : 0;
  for (unsigned I = 0; I < N; ++I) {
    LateModule &M = Modules[I];
    if (M.Installed)
      continue;
    // A pack there already (decan run's cache) first: the request then
    // names only the loops it lacks.
    struct stat St;
    if (stat(M.Pack, &St) == 0) {
      install(M);
      continue;
    }
    if (Requests && !M.Requested && Elapsed >= (double)Cfg.LateAfterMs)
      writeRequest(M, /*OnlyIfAny=*/true);
  }
}

} // namespace

void noteLateModule(decan_rewritten_header *H, decan_loop_desc *Descs,
                    const char *Path) {
  if (!H->late_size || !Cfg.LateDir[0])
    return;
  pthread_mutex_lock(&LateMutex);
  unsigned N = NumModules.load(std::memory_order_relaxed);
  if (N < kMaxLateModules) {
    LateModule &M = Modules[N];
    M = LateModule();
    M.H = H;
    M.Descs = Descs;
    M.Range = reinterpret_cast<uintptr_t>(H) + H->late_offset;
    char Buf[1024];
    const char *Name = moduleName(Path, Buf, sizeof(Buf));
    snprintf(M.Request, sizeof(M.Request), "%s/%s.request", Cfg.LateDir, Name);
    snprintf(M.Pack, sizeof(M.Pack), "%s/%s.pack", Cfg.LateDir, Name);
    NumModules.store(N + 1, std::memory_order_release);
  } else {
    addWarning("more than %u copies with late variants: the others are not "
               "measured",
               kMaxLateModules);
  }
  pthread_mutex_unlock(&LateMutex);
}

void installLatePacks() {
  if (NumModules.load(std::memory_order_acquire) == 0)
    return;
  pthread_mutex_lock(&LateMutex);
  lookNow(nowTsc(), /*Requests=*/false);
  pthread_mutex_unlock(&LateMutex);
}

int lateWaitingCall(LoopState *L, decan_loop_desc *D, uint64_t Tsc) {
  // The first call counts for itself, each later entry for a stride.
  uint64_t Seen = L->LateCalls.load(std::memory_order_relaxed);
  L->LateCalls.fetch_add(Seen ? kLateStride : 1, std::memory_order_relaxed);
  D->countdown = kLateStride;
  uint64_t Next = NextLook.load(std::memory_order_relaxed);
  if (Tsc < Next || !Cfg.LateDir[0])
    return -1;
  // Every 5 ms at most (or 10^7 cycles when the TSC rate is unknown).
  uint64_t Gap = Facts.TscHz > 0 ? (uint64_t)(Facts.TscHz / 200) : 10000000;
  if (!NextLook.compare_exchange_strong(Next, Tsc + Gap))
    return -1;
  if (pthread_mutex_trylock(&LateMutex) != 0)
    return -1;
  lookNow(Tsc);
  pthread_mutex_unlock(&LateMutex);
  return -1;
}

void requestLatePacksAtExit() {
  if (pthread_mutex_trylock(&LateMutex) != 0)
    return;
  unsigned N = NumModules.load(std::memory_order_acquire);
  // Every loop that ran without copies: for the next run's pack (decan run
  // keeps packs in its cache), the ones a request during the run missed.
  for (unsigned I = 0; I < N; ++I)
    if (!Modules[I].Failed)
      writeRequest(Modules[I], /*OnlyIfAny=*/true);
  pthread_mutex_unlock(&LateMutex);
}

} // namespace decan::rt
