//===- Late.cpp - Late variants: requests and late packs ------------------===//
//
// Part of decan. Free of LLVM; no exceptions. See Late.h.
//
//===----------------------------------------------------------------------===//

#include "Late.h"
#include "MachineFacts.h"
#include "Runtime.h"

#include "decan/tsc.h"

#include <algorithm>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

namespace decan::rt {

namespace {

constexpr unsigned kMaxLateModules = 16;
/// Packs per copy and run at most: rounds come at doubling intervals, so
/// a program that keeps entering new loops asks a few times, not forever.
constexpr unsigned kMaxLateRounds = 12;

struct LateModule {
  decan_rewritten_header *H = nullptr;
  decan_loop_desc *Descs = nullptr;
  uintptr_t Range = 0;
  /// DECAN_LATE_DIR/<copy's file name>: its files are Stem.request.K,
  /// Stem.pack.K, Stem.nopack.K (round K) and Stem.ran.PID.
  char Stem[1100] = {};
  /// The round whose pack comes next; a request for it is out.
  unsigned Round = 0;
  bool Pending = false, Failed = false;
  /// Program time (TSC, waits excluded) when the next round is due (0:
  /// DECAN_LATE_AFTER_MS).
  uint64_t NextDueTsc = 0;
};

LateModule Modules[kMaxLateModules];
std::atomic<unsigned> NumModules{0};
/// Serializes requests and installs (a busy lock: the caller goes on).
pthread_mutex_t LateMutex = PTHREAD_MUTEX_INITIALIZER;
/// TSC of the next look at the late directory.
std::atomic<uint64_t> NextLook{0};
/// The program is exiting: no more requests (a loop of a destructor is
/// not worth a wait).
std::atomic<bool> Exiting{false};
/// TSC cycles the program waited for packs, and when it began to; the
/// main thread's runqueue wait (us) meanwhile (decan run building the
/// pack holds the CPUs its polls wake up on).
std::atomic<uint64_t> WaitCycles{0}, WaitBeganTsc{0}, WaitRunqueueUs{0};
/// The same waits on CLOCK_MONOTONIC (ns), the clock of the runqueue wait.
std::atomic<uint64_t> WaitNs{0};

uint64_t nowTsc() { return decan_tsc_stop(); }

/// \p M's file of round \p Round with \p Kind ("request", "pack", ...).
void roundFile(const LateModule &M, const char *Kind, unsigned Round, char *Buf,
               size_t Cap) {
  snprintf(Buf, Cap, "%s.%s.%u", M.Stem, Kind, Round);
}

bool roundFileExists(const LateModule &M, const char *Kind, unsigned Round) {
  char Path[1200];
  roundFile(M, Kind, Round, Path, sizeof(Path));
  struct stat St;
  return stat(Path, &St) == 0;
}

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

/// A loop of \p M that ran without copies and (\p New) was not asked for.
LoopState *ranWaiting(const LateModule &M, uint32_t I, bool New) {
  auto *L = static_cast<LoopState *>(M.Descs[I].runtime_state);
  if (!L || !L->LateWaiting || !L->LateCalls.load(std::memory_order_relaxed))
    return nullptr;
  return New && L->LateRequested ? nullptr : L;
}

/// Writes the ids of \p M's loops that ran without copies (\p New: not
/// asked for yet) to \p Path, through a temporary name and a rename so
/// decan run never reads half of it; false when there is none.
bool writeLoopList(LateModule &M, const char *Path, bool New) {
  bool Any = false;
  for (uint32_t I = 0; I < M.H->count && !Any; ++I)
    Any = ranWaiting(M, I, New);
  if (!Any)
    return false;
  char Tmp[1300];
  snprintf(Tmp, sizeof(Tmp), "%s.tmp%d", Path, (int)getpid());
  FILE *F = fopen(Tmp, "we");
  if (!F) {
    addWarning("cannot write the late-variant request %s", Tmp);
    return false;
  }
  for (uint32_t I = 0; I < M.H->count; ++I)
    if (LoopState *L = ranWaiting(M, I, New)) {
      fprintf(F, "%s\n", L->Id);
      L->LateRequested = true;
    }
  bool Ok = fclose(F) == 0;
  if (!Ok || rename(Tmp, Path) != 0) {
    unlink(Tmp);
    addWarning("cannot write the late-variant request %s", Path);
    return false;
  }
  return true;
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

/// Maps \p M's pack of its current round into its late range, registers
/// its unwind rules and gives its loops their copies; false when it is not
/// there (yet). Caller holds LateMutex.
bool install(LateModule &M) {
  char Pack[1200];
  roundFile(M, "pack", M.Round, Pack, sizeof(Pack));
  int Fd = open(Pack, O_RDONLY | O_CLOEXEC);
  if (Fd < 0)
    return false;
  ++M.Round;
  M.Pending = false;
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
           P.scratch_size % 4096 || P.range_offset % 4096 ||
           P.range_offset > RangeSize ||
           P.ro_size > RangeSize - P.range_offset ||
           P.scratch_offset < P.range_offset + P.ro_size ||
           P.scratch_offset > RangeSize ||
           P.scratch_size > RangeSize - P.scratch_offset ||
           P.count > M.H->count || P.eh_frame_size < 4 ||
           P.eh_frame_offset % 4 || P.eh_frame_offset < P.range_offset ||
           P.eh_frame_offset - P.range_offset > P.ro_size ||
           P.eh_frame_size > P.ro_size - (P.eh_frame_offset - P.range_offset))
    Why = "bad layout";
  if (!Why) {
    size_t Bytes = (size_t)P.count * sizeof(decan_late_entry);
    E = static_cast<decan_late_entry *>(malloc(Bytes ? Bytes : 1));
    if (!E || pread(Fd, E, Bytes, (off_t)P.entries_offset) != (ssize_t)Bytes)
      Why = "truncated";
  }
  for (uint32_t K = 0; !Why && K < P.count; ++K)
    if (E[K].desc_index >= M.H->count || E[K].record_offset < P.range_offset ||
        E[K].record_offset >= P.range_offset + P.ro_size ||
        E[K].minfo_offset < P.range_offset ||
        E[K].minfo_offset + sizeof(decan_machine_info) >
            P.range_offset + P.ro_size ||
        E[K].scratch_offset < P.scratch_offset ||
        E[K].scratch_offset + E[K].scratch_size >
            P.scratch_offset + P.scratch_size)
      Why = "an entry outside the pack";
  // The range is the image's own (reserved by the loader; nothing runs in
  // the part of an earlier round's pack): map the code, then the
  // zero-filled scratch areas.
  if (!Why && P.ro_size &&
      mmap(reinterpret_cast<void *>(M.Range + P.range_offset), P.ro_size,
           PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, Fd,
           (off_t)P.ro_offset) == MAP_FAILED)
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
    addWarning("late pack %s: %s; its loops stay unmeasured", Pack, Why);
    free(E);
    return true;
  }
  uint64_t Now = nowTsc();
  pthread_mutex_lock(&Reg.Mutex);
  for (uint32_t K = 0; K < P.count; ++K) {
    decan_loop_desc *D = &M.Descs[E[K].desc_index];
    // Waiting since its first call, or not run yet (a cached pack at
    // start-up): selected loops only (active 2).
    auto *Old = static_cast<LoopState *>(D->runtime_state);
    if (!isLateBaseLoop(D) || (Old ? !Old->LateWaiting : D->active != 2))
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
      // The loop table is full: the original runs, unmeasured.
      D->runtime_state = Old;
      D->active = 0;
      continue;
    }
    New->CallsBeforeLate =
        Old ? Old->LateCalls.load(std::memory_order_relaxed) : 0;
    New->LateSinceTsc = Now;
    if (Old)
      Old->Superseded.store(true, std::memory_order_release);
    D->countdown = 0;
    D->active = New->Selected && New->Plan.N > 0 ? 1 : 0;
  }
  pthread_mutex_unlock(&Reg.Mutex);
  free(E);
  return true;
}

/// Takes decan run's answer to \p M's current round: installs its pack,
/// or goes on to the next round when decan run says there is none
/// (Stem.nopack.K); false while neither is there. Caller holds LateMutex.
bool takeAnswer(LateModule &M) {
  if (install(M))
    return true;
  if (!M.Pending || !roundFileExists(M, "nopack", M.Round))
    return false;
  ++M.Round;
  M.Pending = false;
  return true;
}

/// The program's time (TSC) so far, its waits for packs left out.
uint64_t programTsc(uint64_t Now) {
  uint64_t Waited = WaitCycles.load(std::memory_order_relaxed);
  uint64_t Since = Now > Facts.TscStart ? Now - Facts.TscStart : 0;
  return Since > Waited ? Since - Waited : 0;
}

/// The program waited for decan run since \p T0 (TSC; \p Rq0: the main
/// thread's runqueue wait then): not the program's time.
void noteWait(uint64_t T0, uint64_t Rq0, uint64_t Ns0) {
  uint64_t Zero = 0;
  WaitBeganTsc.compare_exchange_strong(Zero, T0);
  WaitCycles.fetch_add(nowTsc() - T0, std::memory_order_relaxed);
  WaitNs.fetch_add(nowNs() - Ns0, std::memory_order_relaxed);
  uint64_t Rq1 = mainThreadRunqueueWaitUs();
  if (Rq1 > Rq0)
    WaitRunqueueUs.fetch_add(Rq1 - Rq0, std::memory_order_relaxed);
}

/// The modules whose request was just written wait for their packs
/// (DECAN_LATE_WAIT_MS): the calling thread sleeps until each pack is
/// there, or decan run says there is none (Stem.nopack.K), or the time is
/// up. The pause is taken out of the run's time (lateWaitCycles), so a
/// short program gets its variants in its first run; the other threads
/// go on meanwhile, their loops counted. Caller holds LateMutex.
void waitForPacks(const bool *Asked, unsigned N) {
  uint64_t T0 = nowTsc(), Rq0 = mainThreadRunqueueWaitUs(), Ns0 = nowNs();
  uint64_t Until = Ns0 + Cfg.LateWaitMs * 1000000ull;
  for (;;) {
    bool Waiting = false;
    for (unsigned I = 0; I < N; ++I)
      Waiting |= Asked[I] && Modules[I].Pending && !takeAnswer(Modules[I]);
    if (!Waiting)
      break;
    if (nowNs() >= Until) {
      addWarning("waited %llu ms for late variants: the run goes on without "
                 "them until they arrive",
                 (unsigned long long)Cfg.LateWaitMs);
      break;
    }
    struct timespec Ts = {0, 5000000};
    nanosleep(&Ts, nullptr);
  }
  noteWait(T0, Rq0, Ns0);
}

/// Installs the packs there (decan run's cache at start-up, answers
/// since) and (\p Requests) writes the requests that are due, then waits
/// for their packs when asked to. A round is due DECAN_LATE_AFTER_MS of
/// program time after the start, then after twice the time since the
/// last round (so at most about log2 of the run's length rounds), when
/// loops ran without copies that were not asked for yet. Caller holds
/// LateMutex.
void lookNow(uint64_t Now, bool Requests = true) {
  unsigned N = NumModules.load(std::memory_order_acquire);
  uint64_t Prog = programTsc(Now);
  double Ms = Facts.TscHz > 0 ? Facts.TscHz / 1e3 : 1e6; // TSC per ms
  bool Asked[kMaxLateModules] = {}, AnyAsked = false;
  for (unsigned I = 0; I < N; ++I) {
    LateModule &M = Modules[I];
    if (M.Failed)
      continue;
    // Packs there already (the cache, answers): a request names the rest.
    while (!M.Failed && takeAnswer(M))
      ;
    if (M.Failed || M.Pending)
      continue;
    uint64_t Due =
        M.NextDueTsc ? M.NextDueTsc : (uint64_t)((double)Cfg.LateAfterMs * Ms);
    if (!Requests || Exiting.load(std::memory_order_relaxed) ||
        M.Round >= kMaxLateRounds || Prog < Due)
      continue;
    char Request[1200];
    roundFile(M, "request", M.Round, Request, sizeof(Request));
    if (!writeLoopList(M, Request, /*New=*/true))
      continue;
    M.Pending = true;
    // The next round no sooner than twice the program time of this one.
    M.NextDueTsc = std::max<uint64_t>(
        2 * Prog, Prog + (uint64_t)((double)Cfg.LateAfterMs * Ms) + 1);
    char NoPack[1200];
    roundFile(M, "nopack", M.Round, NoPack, sizeof(NoPack));
    unlink(NoPack); // another process's answer to another request
    Asked[I] = true;
    AnyAsked = true;
  }
  if (AnyAsked && Cfg.LateWaitMs)
    waitForPacks(Asked, N);
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
    snprintf(M.Stem, sizeof(M.Stem), "%s/%s", Cfg.LateDir, Name);
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

LoopState *waitingLoopState(decan_loop_desc *D) {
  if (D->active != 2 || !isLateBaseLoop(D))
    return nullptr;
  pthread_mutex_lock(&Reg.Mutex);
  auto *L = static_cast<LoopState *>(D->runtime_state);
  if (!L && D->active == 2 && isLateBaseLoop(D)) {
    L = newLoop(D, /*IsRegion=*/false);
    if (L)
      L->LateWaiting = true;
    else
      D->active = 0; // the loop table is full (a warning says so)
  }
  pthread_mutex_unlock(&Reg.Mutex);
  return L;
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

uint64_t lateWaitCycles() { return WaitCycles.load(std::memory_order_relaxed); }

uint64_t lateWaitNs() { return WaitNs.load(std::memory_order_relaxed); }

uint64_t lateWaitRunqueueUs() {
  return WaitRunqueueUs.load(std::memory_order_relaxed);
}

uint64_t lateWaitBeganTsc() {
  return WaitBeganTsc.load(std::memory_order_relaxed);
}

const char *lateLibraryCopy(const char *File, char *Buf, size_t Cap) {
  if (!Cfg.LateDlopen || !Cfg.LateDir[0] || !File || !*File ||
      Exiting.load(std::memory_order_relaxed))
    return File;
  // decan run resolves a bare name as the loader would; a path is sent
  // whole, as the loader sees it from this directory.
  char Name[4096];
  if (!strchr(File, '/'))
    snprintf(Name, sizeof(Name), "%s", File);
  else if (!realpath(File, Name))
    return File; // dlopen says why
  static pthread_mutex_t DlopenMutex = PTHREAD_MUTEX_INITIALIZER;
  static unsigned NextRound = 0;
  pthread_mutex_lock(&DlopenMutex);
  char Stem[1200], Request[1300], Tmp[1300], Answer[1300];
  snprintf(Stem, sizeof(Stem), "%s/dlopen.%d.%u", Cfg.LateDir, (int)getpid(),
           NextRound++);
  snprintf(Request, sizeof(Request), "%s.request", Stem);
  snprintf(Tmp, sizeof(Tmp), "%s.tmp", Stem);
  const char *Out = File;
  FILE *F = fopen(Tmp, "we");
  bool Sent = F && fprintf(F, "%s\n", Name) > 0;
  if (F)
    Sent = fclose(F) == 0 && Sent;
  if (!Sent || rename(Tmp, Request) != 0) {
    unlink(Tmp);
    addWarning("cannot ask decan run for a copy of %s (%s): it is not "
               "measured",
               Name, Request);
    pthread_mutex_unlock(&DlopenMutex);
    return File;
  }
  uint64_t T0 = nowTsc(), Rq0 = mainThreadRunqueueWaitUs(), Ns0 = nowNs();
  uint64_t WaitMs = Cfg.LateWaitMs ? Cfg.LateWaitMs : 120000;
  uint64_t Until = nowNs() + WaitMs * 1000000ull;
  for (;;) {
    snprintf(Answer, sizeof(Answer), "%s.copy", Stem);
    if (FILE *A = fopen(Answer, "re")) {
      bool Got = fgets(Buf, (int)Cap, A) != nullptr;
      fclose(A);
      Buf[Got ? strcspn(Buf, "\n") : 0] = '\0';
      if (Buf[0])
        Out = Buf;
      break;
    }
    snprintf(Answer, sizeof(Answer), "%s.nocopy", Stem);
    struct stat St;
    if (stat(Answer, &St) == 0)
      break;
    if (nowNs() >= Until) {
      addWarning("waited %llu ms for a copy of %s: it is not measured",
                 (unsigned long long)WaitMs, Name);
      break;
    }
    struct timespec Ts = {0, 2000000};
    nanosleep(&Ts, nullptr);
  }
  noteWait(T0, Rq0, Ns0);
  pthread_mutex_unlock(&DlopenMutex);
  return Out;
}

void requestLatePacksAtExit() {
  Exiting.store(true, std::memory_order_relaxed);
  if (pthread_mutex_trylock(&LateMutex) != 0)
    return;
  unsigned N = NumModules.load(std::memory_order_acquire);
  // Every loop that ran without copies, asked for or not (a request may be
  // unanswered): decan run builds the next run's pack with them.
  for (unsigned I = 0; I < N; ++I) {
    char Ran[1200];
    snprintf(Ran, sizeof(Ran), "%s.ran.%d", Modules[I].Stem, (int)getpid());
    writeLoopList(Modules[I], Ran, /*New=*/false);
  }
  pthread_mutex_unlock(&LateMutex);
}

} // namespace decan::rt
