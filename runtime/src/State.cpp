//===- State.cpp - Loop and thread tables ---------------------------------===//
//
// Part of decan. Free of LLVM; no exceptions.
//
//===----------------------------------------------------------------------===//

#include "State.h"
#include "Objects.h"

#include <algorithm>
#include <atomic>
#include <errno.h>
#include <fcntl.h>
#include <new>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <type_traits>
#include <unistd.h>

namespace decan::rt {

constinit Config Cfg;
constinit ScheduleParams Sched;
constinit Registry Reg;
constinit CounterSetup Ctr;
constinit MachineFacts Facts;
constinit ProcessState Proc;

constinit thread_local ThreadState *TlsThread
    __attribute__((tls_model("initial-exec"))) = nullptr;
thread_local uint64_t TlsRefused __attribute__((tls_model("initial-exec"))) = 0;

int32_t gettidNow() { return (int32_t)syscall(SYS_gettid); }

__attribute__((format(printf, 1, 2))) void addWarning(const char *Fmt, ...) {
  unsigned I = Proc.NumWarnings.load(std::memory_order_relaxed);
  do {
    if (I >= kMaxWarnings)
      return;
  } while (!Proc.NumWarnings.compare_exchange_weak(I, I + 1));
  va_list Ap;
  va_start(Ap, Fmt);
  vsnprintf(Proc.Warnings[I], sizeof(Proc.Warnings[I]), Fmt, Ap);
  va_end(Ap);
}

ThreadState *initThread() {
  if (!Proc.Active || TlsRefused == Reg.Generation)
    return nullptr;
  uint32_t I = Reg.NumThreads.fetch_add(1);
  if (I >= kMaxThreads) {
    TlsRefused = Reg.Generation;
    if (I == kMaxThreads)
      addWarning("more than %u threads: later threads are not measured",
                 kMaxThreads);
    return nullptr;
  }
  void *M = calloc(1, sizeof(ThreadState));
  if (!M) {
    TlsRefused = Reg.Generation;
    return nullptr;
  }
  ThreadState *T = new (M) ThreadState();
  T->Gen = Reg.Generation;
  T->Index = I;
  T->Tid = gettidNow();
  for (unsigned E = 0; E < Ctr.NumEvents; ++E) {
    char Err[192];
    if (!T->Counters[E].open(Ctr.Events[E].Attr, Ctr.Events[E].Name, Err,
                             sizeof(Err)))
      addWarning("thread %u: %s (its calls are flagged)", I, Err);
  }
  // Crash handlers need a stack even when the crash is a stack overflow.
  stack_t Old;
  if (sigaltstack(nullptr, &Old) == 0 && (Old.ss_flags & SS_DISABLE)) {
    stack_t S;
    S.ss_size = 64 * 1024;
    S.ss_sp = malloc(S.ss_size);
    S.ss_flags = 0;
    if (S.ss_sp)
      sigaltstack(&S, nullptr);
  }
  Reg.Threads[I].store(T, std::memory_order_release);
  TlsThread = T;
  return T;
}

ThreadLoop *initThreadLoop(ThreadState *T, const LoopState *L) {
  std::atomic<ThreadLoopPage *> &PP = T->LoopPages[L->Index >> kLoopPageBits];
  ThreadLoopPage *P = PP.load(std::memory_order_relaxed);
  if (!P) {
    void *PM = calloc(1, sizeof(ThreadLoopPage));
    if (!PM)
      return nullptr;
    P = new (PM) ThreadLoopPage();
    PP.store(P, std::memory_order_release);
  }
  void *M = calloc(1, sizeof(ThreadLoop));
  if (!M)
    return nullptr;
  ThreadLoop *TL = new (M) ThreadLoop();
  // A second thread: every call of the loop reaches the runtime again, so
  // each thread's totals count its own calls.
  if (L->Threads.fetch_add(1, std::memory_order_relaxed) == 1 && L->Desc &&
      L->Desc->active == 2)
    L->Desc->active = 1;
  for (unsigned I = 0; I < L->Plan.N; ++I)
    if (!TL->V[L->Plan.Order[I]].Raw.init(kFieldEvents + Ctr.NumEvents,
                                          Cfg.MaxRecords))
      addWarning("out of memory for the records of %s", L->Id);
  P->E[L->Index & (kLoopPage - 1)].store(TL, std::memory_order_release);
  return TL;
}

LoopState *newLoop(decan_loop_desc *D, bool IsRegion) {
  uint32_t I = Reg.NumLoops.load(std::memory_order_relaxed);
  if (I >= kMaxLoops) {
    // NumLoops stays at the capacity: every reader indexes Loops[] and the
    // per-thread tables with it, and one past the end reads the globals
    // that follow as LoopState pointers (a crash in the report writer).
    if (Reg.DroppedLoops.fetch_add(1) == 0)
      addWarning("more than %u loops registered: %s and later ones are not "
                 "measured",
                 kMaxLoops, D->id ? D->id : "?");
    return nullptr;
  }
  void *M = calloc(1, sizeof(LoopState));
  if (!M)
    return nullptr;
  LoopState *L = new (M) LoopState();
  L->Desc = D;
  auto Copy = [](const char *S) -> const char * {
    char *C = S ? strdup(S) : nullptr;
    return C ? C : "";
  };
  L->Id = Copy(D->id);
  L->Function = Copy(D->function);
  L->File = Copy(D->file);
  L->Line = D->line;
  L->Source = Copy(D->source);
  L->Object = objectNameOf(D);
  L->IterationStep = D->iteration_step;
  L->VariantMask = D->variant_mask;
  L->BoundMask = D->bound_mask;
  L->CallsDeletedMask = D->minfo ? D->minfo->calls_deleted_mask : 0;
  L->ChasedLoads = D->minfo ? D->minfo->n_chased_load : 0;
  L->DL1MemoryCallBytes = D->minfo ? D->minfo->dl1_memory_call_bytes : 0;
  if (D->minfo) {
    L->NumGroups = D->minfo->n_groups;
    for (unsigned G = 0; G < DECAN_MAX_GROUPS; ++G) {
      L->GroupAccesses[G] = D->minfo->group_accesses[G];
      memcpy(L->GroupName[G], D->minfo->group_name[G], sizeof(L->GroupName[G]));
      L->GroupName[G][sizeof(L->GroupName[G]) - 1] = '\0';
    }
  }
  for (int V = 0; V < DECAN_NUM_VARIANTS; ++V) // REF is the real loop
    L->StorePolicy[V] = D->minfo         ? (uint8_t)D->minfo->store_policy[V]
                        : V == DECAN_REF ? (uint8_t)DECAN_STORE_KEPT
                                         : kNoStorePolicy;
  L->CappedMask = D->minfo ? D->minfo->capped_mask : 0;
  L->Index = I;
  L->IsRegion = IsRegion;
  L->Selected = D->id && Cfg.selects(D->id);
  if (!D->id)
    addWarning("a loop descriptor without id: not measured");
  for (unsigned K = 0; K < Cfg.NumVariants; ++K) {
    int V = Cfg.Variants[K];
    const char *Why = nullptr;
    if (V == DECAN_NO_CALL && !IsRegion && !(D->variant_mask & (1u << V)))
      continue; // a loop without calls has no NO_CALL: nothing to report
    // The producer's status first: the rewriter emits no copy of an empty
    // or unsupported variant, and its reason is still the reason.
    if (D->minfo && D->minfo->status[V] != DECAN_VARIANT_OK &&
        D->minfo->status[V] != DECAN_VARIANT_NOT_BUILT)
      Why = decan_variant_status_name(D->minfo->status[V]);
    else if (!(D->variant_mask & (1u << V)))
      Why = IsRegion ? "region" : "not-emitted";
    if (Why) {
      L->Unavailable[V] = Why;
      if (D->minfo)
        L->UnavailableWhy[V] = decan_variant_why_text(D->minfo->why[V]);
      continue;
    }
    if (Cfg.RunMode == Mode::Replace && L->Plan.N == 1)
      continue; // replace runs the first eligible variant only
    L->Plan.Order[L->Plan.N++] = (uint8_t)V;
  }
  D->runtime_state = L;
  Reg.Loops[I].store(L, std::memory_order_release);
  Reg.NumLoops.store(I + 1, std::memory_order_release);
  return L;
}

LoopState *findRegion(const char *Name) {
  uint32_t N = Reg.NumRegions.load(std::memory_order_acquire);
  for (uint32_t I = 0; I < N; ++I)
    if (!strcmp(Reg.Regions[I]->Function, Name))
      return Reg.Regions[I];
  pthread_mutex_lock(&Reg.Mutex);
  LoopState *L = nullptr;
  N = Reg.NumRegions.load();
  for (uint32_t I = 0; I < N && !L; ++I)
    if (!strcmp(Reg.Regions[I]->Function, Name))
      L = Reg.Regions[I];
  if (!L && N < kMaxRegions) {
    size_t Len = strlen(Name);
    auto *D =
        static_cast<decan_loop_desc *>(calloc(1, sizeof(decan_loop_desc)));
    char *Id = static_cast<char *>(malloc(Len + 8));
    char *Fn = static_cast<char *>(malloc(Len + 1));
    if (D && Id && Fn) {
      memcpy(Id, "region:", 7);
      memcpy(Id + 7, Name, Len + 1);
      memcpy(Fn, Name, Len + 1);
      D->abi_version = DECAN_ABI_VERSION;
      D->variant_mask = 1u << DECAN_REF;
      D->id = Id;
      D->function = Fn;
      D->file = "";
      L = newLoop(D, /*IsRegion=*/true);
      if (L) {
        Reg.Regions[N] = L;
        Reg.NumRegions.store(N + 1, std::memory_order_release);
      }
    }
  }
  pthread_mutex_unlock(&Reg.Mutex);
  return L;
}

} // namespace decan::rt
