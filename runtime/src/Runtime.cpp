//===- Runtime.cpp - decan runtime: the entry points --------------------===//
//
// Part of decan. Free of LLVM; no exceptions; C-linkable entry points.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The entry points of decan/abi.h (register, begin_call, end_call) and
/// decan/runtime.h, initialization, and the internal interface of
/// Runtime.h. Everything the hot path touches is per thread (ThreadState,
/// reached through one initial-exec TLS pointer) or read-only after
/// registration (LoopState), so __decan_begin_call/__decan_end_call take no
/// lock and allocate nothing except a record chunk once per
/// RecordBuffer::kChunkRecords calls, outside the timed region. The state
/// lives in State.h; start-up measurements in MachineFacts.cpp, the report
/// in ReportWriter.cpp, signals in Signals.cpp, rewritten binaries in
/// Rewritten.cpp, regions in Regions.cpp, the budget and record of samples
/// in Sampling.h. docs/runtime.md describes the behaviour.
//===----------------------------------------------------------------------===//

#include "Runtime.h"
#include "Config.h"
#include "FpEnvGuard.h"
#include "Guard.h"
#include "Late.h"
#include "MachineFacts.h"
#include "Objects.h"
#include "Records.h"
#include "ReportWriter.h"
#include "Sampling.h"
#include "Schedule.h"
#include "Signals.h"
#include "State.h"
#include "decan/runtime.h"
#include "decan/tsc.h"

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
namespace {

void finishInstanceIfDone() {
  uint32_t NL = std::min<uint32_t>(Reg.NumLoops.load(), kMaxLoops);
  for (uint32_t I = 0; I < NL; ++I) {
    LoopState *L = Reg.Loops[I].load();
    if (L && L->Selected && !L->IsRegion && L->Plan.N &&
        !L->InstanceDone.load())
      return;
  }
  if (Proc.FinalDone.exchange(true))
    return;
  writeReport("complete", 0, -1, -1);
  // Instance mode measured what it was asked to: end the run here, cleanly,
  // so the rest of the program does not cost time.
  exit(0);
}

void initialize(GetEnvFn GetEnv) {
  FpEnvGuard Fp; // the TSC calibration computes in doubles before main
  parseConfig(Cfg, GetEnv);
  Proc.Active = Cfg.Active;
  if (!Proc.Active)
    return;
  Sched = {Cfg.RunMode, Cfg.Warmup, Cfg.Reps, Cfg.Instance};
  for (unsigned I = 0; I < Cfg.NumWarnings; ++I) {
    fprintf(stderr, "decan: warning: %s\n", Cfg.Warnings[I]);
    addWarning("%s", Cfg.Warnings[I]);
  }
  readMachineFacts();
  calibrateTsc();
  measureProbe();
  measureSlotCost();
  measureCountdownCost();
  measureDispatchCost();
  setupEvents();
  buildPaths();
  if (access(Cfg.OutputDir, W_OK | X_OK) != 0) {
    // Say so now, not only when the report cannot be written at exit.
    fprintf(stderr,
            "decan: error: DECAN_OUTPUT '%s' is not a writable directory: %s; "
            "the report will be lost\n",
            Cfg.OutputDir, strerror(errno));
  }
  installHooks();
  Facts.CpuStartUs = processCpuUs();
  Facts.RunqueueWaitStartUs = mainThreadRunqueueWaitUs();
  Facts.RunqueueWaitStartNs = nowNs();
  Facts.TscStart = decan_tsc_start();
  currentThread(); // the initializing (main) thread is thread 0
  loadLibraryMap(Cfg.LibMap);
  scanLoadedObjects();
}

} // namespace

void ensureInit() {
  if (__builtin_expect(Proc.InitDone.load(std::memory_order_acquire), 1))
    return;
  pthread_once(&Proc.InitOnce, [] {
    initialize([](const char *N) -> const char * { return getenv(N); });
    Proc.InitDone.store(true, std::memory_order_release);
  });
}

__attribute__((constructor)) void runtimeConstructor() { ensureInit(); }

void reinitializeForTesting(GetEnvFn GetEnv) {
  ensureInit();
  pthread_mutex_lock(&Reg.Mutex);
  uint32_t NL = std::min<uint32_t>(Reg.NumLoops.load(), kMaxLoops);
  // Descriptors registered before belong to the tests and may be gone:
  // they are not touched, only forgotten.
  for (uint32_t I = 0; I < NL; ++I)
    Reg.Loops[I].store(nullptr);
  Reg.NumLoops.store(0);
  Reg.DroppedLoops.store(0);
  Reg.NumRegions.store(0);
  for (uint32_t I = 0; I < kMaxThreads; ++I)
    Reg.Threads[I].store(nullptr);
  Reg.NumThreads.store(0);
  Proc.NumWarnings.store(0);
  Proc.FinalDone.store(false);
  ++Reg.Generation; // every thread's TLS state is now stale
  pthread_mutex_unlock(&Reg.Mutex);
  initialize(GetEnv);
}

bool writeReportNow(const char *Status) {
  ensureInit();
  return writeReport(Status, 0, -1, -1);
}

const char *reportPath() {
  ensureInit();
  buildPaths();
  return Proc.PathBuf;
}

unsigned maxLoops() { return kMaxLoops; }
double tscHz() { return Facts.TscHz; }
uint64_t probeMinCycles() { return Facts.ProbeMin; }
uint64_t probeMedianCycles() { return Facts.ProbeMedian; }
bool countersAvailable() { return Ctr.CountersOk; }
const char *countersMessage() { return Ctr.CountersMsg; }
unsigned numWorkingEvents() { return Ctr.NumEvents; }

bool visitRecords(const char *Id, RecordVisitor Fn, void *Ctx) {
  uint32_t NL = std::min<uint32_t>(Reg.NumLoops.load(), kMaxLoops);
  for (uint32_t I = 0; I < NL; ++I) {
    LoopState *L = Reg.Loops[I].load();
    if (!L || strcmp(L->Id, Id) != 0)
      continue;
    uint32_t NT = std::min<uint32_t>(Reg.NumThreads.load(), kMaxThreads);
    for (uint32_t TI = 0; TI < NT; ++TI) {
      ThreadState *T = Reg.Threads[TI].load();
      if (!T || T->Gen != Reg.Generation)
        continue;
      ThreadLoop *TL = peekThreadLoop(T, L->Index);
      if (!TL)
        continue;
      for (int V = 0; V < DECAN_NUM_VARIANTS; ++V)
        for (uint64_t R = 0, N = TL->V[V].Raw.size(); R < N; ++R)
          Fn(Ctx, T->Index, T->Tid, V, TL->V[V].Raw.at(R),
             TL->V[V].Raw.stride());
    }
    return true;
  }
  return false;
}

} // namespace decan::rt

using namespace decan::rt;

//===-- ABI entry points (decan/abi.h) ------------------------------------===//

namespace decan::rt {
/// Registration proper. Does not initialize the runtime: it also runs from
/// initialize() itself (rewritten binaries found by dl_iterate_phdr), inside
/// the pthread_once that ensureInit() would wait on forever.
void registerLoops(decan_loop_desc *Descs, uint32_t Count) {
  if (!Proc.Active || !Descs)
    return; // inert: descriptors stay inactive
  pthread_mutex_lock(&Reg.Mutex);
  for (uint32_t I = 0; I < Count; ++I) {
    decan_loop_desc *D = &Descs[I];
    if (D->abi_version != DECAN_ABI_VERSION) {
      addWarning("loop %s: ABI version %u, runtime has %u: not measured",
                 D->id ? D->id : "?", D->abi_version, DECAN_ABI_VERSION);
      continue;
    }
    if (D->runtime_state)
      continue; // registered twice (same module seen twice)
    if (Cfg.LateDir[0] && isLateBaseLoop(D)) {
      // No copy before its late pack: the stub counts calls down, every
      // kLateStride-th reaches the runtime (Late.h). Its state comes at
      // its first call (libLLVM has 115 000 loops, a run a few thousand).
      if (D->id && Cfg.selects(D->id)) {
        D->countdown = 0;
        D->active = 2;
      }
      continue;
    }
    bool IsRegion = D->flags & DECAN_DESC_REGION;
    LoopState *L = newLoop(D, IsRegion);
    if (L && L->Selected && (IsRegion ? Cfg.Regions : L->Plan.N > 0))
      D->active = 1;
  }
  pthread_mutex_unlock(&Reg.Mutex);
}
} // namespace decan::rt

DECAN_API void __decan_register_loops(decan_loop_desc *Descs, uint32_t Count) {
  ensureInit();
  registerLoops(Descs, Count);
}

/// Whether \p T may run a copy of \p L now: in rotate mode one thread at a
/// time runs a loop's copies, which share its scratch area
/// (LoopState::ScratchBusy).
static bool claimScratch(LoopState *L, ThreadState *T,
                         const decan_loop_desc *Desc) {
  if (Sched.RunMode != Mode::Rotate || !Desc->scratch)
    return true;
  if (L->ScratchBusy.exchange(true, std::memory_order_acquire)) {
    L->ScratchBusyCalls.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  T->ScratchHeld = L;
  return true;
}

/// \p T's copy has run (or was left): another thread's may.
static void releaseScratch(ThreadState *T) {
  T->ScratchHeld->ScratchBusy.store(false, std::memory_order_release);
  T->ScratchHeld = nullptr;
}

/// An exception or a longjmp left \p T's measured call in flight: it is
/// dropped, untimed. A variant's FP control bits go back to the program's
/// (its sticky flags stay: the program's code raised them since).
static void dropInFlight(ThreadState *T) {
  if (T->ScratchHeld)
    releaseScratch(T);
  LoopState *Left = Reg.Loops[T->InFlightLoop].load();
  if (T->InFlightVariant != DECAN_REF && T->InFlightRerunOf < 0 &&
      Cfg.Fp == FpEnv::Ftz)
    setMxcsr((T->SavedMxcsr & ~kMxcsrFlags) | (getMxcsr() & kMxcsrFlags));
  disarmGuard();
  if (Left && !Left->Abandoned.exchange(true))
    addWarning("%s: a measured call was left by an exception or a "
               "longjmp: such calls are neither timed nor counted in its "
               "whole run",
               Left->Id);
  T->InFlightLoop = T->InFlightVariant = T->InFlightRerunOf = -1;
}

/// Whether code running at stack address \p Frame is outside \p T's
/// measured call in flight (a call nested in it runs deeper).
static bool leftInFlight(const ThreadState *T, uintptr_t Frame) {
  return T->InFlightLoop >= 0 && Frame >= T->InFlightFrame;
}

void decan::rt::dropCallLeftBelow(uintptr_t Frame) {
  ThreadState *T = TlsThread;
  if (T && T->Gen == Reg.Generation && leftInFlight(T, Frame))
    dropInFlight(T);
}

/// The iterations a capped copy of \p L may run in one call (abi.h,
/// iteration_cap): kCapFactor times the most REF ran, at least kCapFloor,
/// doubled for each capped call whose original run was as long (a loop
/// whose trips the runtime cannot count).
static uint64_t iterationCap(const LoopState *L) {
  uint64_t Trips = L->MaxRefTrips.load(std::memory_order_relaxed);
  uint64_t Cap =
      Trips > kCapFloor / kCapFactor ? Trips : kCapFloor / kCapFactor;
  unsigned Shift =
      std::min<uint32_t>(L->CapShift.load(std::memory_order_relaxed), 20);
  Cap = Cap > (UINT64_MAX >> 25) ? UINT64_MAX >> 1 : Cap * kCapFactor << Shift;
  return Cap;
}

/// A capped copy of variant \p V (DECAN_TRIPS_CAPPED) was followed by the
/// original loop on the same input, which ran \p Trips iterations in
/// \p Cycles: a copy that ran kCapFactor times REF's work did not end
/// because of what it removes (its exit reads memory it no longer writes),
/// and leaves the rotation; one whose input was as long only waited for a
/// larger cap.
static void judgeCapped(LoopState *L, ThreadState *T, int V, uint64_t Cycles,
                        uint64_t Trips) {
  T->InFlightCapped = false;
  // A nest's trip count is its outer loop's, and each of its loops counts
  // down from the cap (IRIterationCap.h): it is judged by time.
  if (L->Desc && (L->Desc->flags & DECAN_DESC_NEST))
    Trips = 0;
  bool Runaway = Trips ? T->CappedAt / kCapFactor >= Trips
                       : T->CappedCycles / kCapFactor >= Cycles;
  if (!Runaway) {
    if (!Trips)
      L->CapShift.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  uint32_t Bit = 1u << V;
  if (L->DisabledMask.fetch_or(Bit, std::memory_order_relaxed) & Bit)
    return;
  if (Trips)
    addWarning("%s: %s did not end within %llux REF's iterations (%llu; "
               "REF ran %llu on the same input): its exit depends on what "
               "it removes; %s is not measured",
               L->Id, kVariantNames[V], (unsigned long long)kCapFactor,
               (unsigned long long)T->CappedAt, (unsigned long long)Trips,
               kVariantNames[V]);
  else
    addWarning("%s: %s did not end within %llux REF's time on the same "
               "input: its exit depends on what it removes; %s is not "
               "measured",
               L->Id, kVariantNames[V], (unsigned long long)kCapFactor,
               kVariantNames[V]);
}

DECAN_API int __decan_begin_call(decan_loop_desc *Desc) {
  uint64_t Entry = rawTsc();
  auto *L = static_cast<LoopState *>(Desc->runtime_state);
  if (__builtin_expect(!L, 0) && !(L = waitingLoopState(Desc)))
    return -1;
  if (__builtin_expect(L->LateWaiting, 0))
    return lateWaitingCall(L, Desc, Entry);
  ThreadState *T = currentThread();
  if (__builtin_expect(!T, 0))
    return -1;
  // The call in flight cannot enclose this one when this begin_call runs
  // at or above its frame (a nested call runs deeper in the stack).
  uintptr_t Frame = (uintptr_t)__builtin_frame_address(0);
  if (__builtin_expect(leftInFlight(T, Frame), 0))
    dropInFlight(T);
  if (__builtin_expect(T->InFlightLoop >= 0, 0)) {
    // Nested in another measured call (issue 13): a loop is measured where
    // it is innermost. The outer loop's timed calls hold this one's work,
    // and of calls of a strided loop the runtime sees only one in k, so
    // the nest shows late and its calls cannot be told apart: the outer
    // loop stops being timed and its measurements so far are dropped from
    // the report (ReportWriter), so no time is counted twice. When it runs
    // the program's loop (REF) its timing is abandoned at once (its
    // end_call then changes nothing), so this one is measured; a variant in
    // flight must still be followed by the original run, so this one runs
    // untimed.
    LoopState *Out = Reg.Loops[T->InFlightLoop].load();
    if (!Out || Out == L)
      return -1;
    if (Out->Desc && !Out->Yielded.exchange(true)) {
      Out->Desc->active = 0;
      addWarning("%s calls measured loops (%s): not measured (a loop is "
                 "measured where it is innermost; its time holds theirs)",
                 Out->Id, L->Id);
    }
    if (T->InFlightVariant != DECAN_REF)
      return -1; // a variant must still be followed by the original run
    T->InFlightLoop = T->InFlightVariant = T->InFlightRerunOf = -1;
  }
  ThreadLoop *TL = threadLoop(T, L);
  if (__builtin_expect(!TL, 0))
    return -1;
  bool OneThread = L->Threads.load(std::memory_order_relaxed) == 1;
  // Several threads: each counts its own stride down here (the descriptor's
  // countdown is one per loop); an untimed call costs this return only.
  if (!OneThread && TL->Countdown > 1) {
    --TL->Countdown;
    return -1;
  }
  // At a stride k, a call stands for the k-1 before it that counted down
  // (a thread's first on several threads: those that counted its stride
  // down in the descriptor until another thread's call came here).
  uint64_t Weight = !OneThread || Desc->active == 2 ? TL->Stride : 1;
  TL->Weight = Weight;
  Decision D = decide(
      L->Plan, TL->Rot, Sched, L->Index + 1, [TL] { return slotGapCap(TL); },
      Weight - 1);
  if (D.Variant < 0) {
    TL->Tot.Untimed += Weight;
    return -1;
  }
  if (D.Variant != DECAN_REF) {
    // A variant that ran away once is not run again: the slot times REF.
    uint32_t Bit = 1u << D.Variant;
    if (__builtin_expect(L->DisabledMask.load(std::memory_order_relaxed) & Bit,
                         0))
      D = {DECAN_REF, Role::Account};
    else if (!claimScratch(L, T, Desc))
      D = {DECAN_REF, Role::Sample}; // another thread runs a copy
    else if (L->CappedMask & Bit)
      Desc->iteration_cap = iterationCap(L);
  }
  if (Sched.RunMode == Mode::Rotate) {
    uint64_t Timed = TL->Tot.TimedCalls;
    // A nest times every call (abi.h DECAN_DESC_NEST): the calls of its
    // inner loops it left to their stubs are then outside its own.
    if (Timed >= kStrideMinCalls && !(Desc->flags & DECAN_DESC_NEST) &&
        (Timed == kStrideMinCalls || !(Timed & kStrideUpdateMask)))
      TL->StrideCap = strideCap(TL);
    uint64_t Next = strideAfter(TL->Rot, D.What, TL->Rot.Calls, TL->StrideCap);
    // Once counting down, the countdown (the descriptor's, or the thread's
    // on several) is set at every decided call, a stride of 1 included: the
    // report reads the calls since as the stride less what is left
    // (tailCalls); one the stub left at 0 would read as a call more.
    if (!OneThread)
      TL->Countdown = Next;
    else if (Next > 1 || Desc->active == 2) {
      Desc->countdown = (int32_t)Next;
      if (Desc->active == 1) {
        L->Strided.store(true, std::memory_order_relaxed);
        Desc->active = 2;
      }
    }
    TL->Stride = Next;
  }
  T->InFlightLoop = (int32_t)L->Index;
  T->InFlightFrame = Frame;
  T->InFlightVariant = D.Variant;
  T->InFlightRerunOf = -1;
  T->InFlightRole = D.What;
  T->EntryTsc = Entry;
  T->SlotSwitched = false;
  // REF is the program's loop: it runs in the program's FP environment.
  if (D.Variant != DECAN_REF && Cfg.Fp == FpEnv::Ftz) {
    uint32_t Csr = getMxcsr();
    T->SavedMxcsr = Csr;
    setMxcsr((Csr & ~kMxcsrFlags) | kMxcsrMasks | kMxcsrFtz | kMxcsrDaz);
  }
  if (D.Variant != DECAN_REF)
    T->SavedErrno = errno;
  if (D.Variant == DECAN_DL1 && Desc->scratch) {
    // Bring the scratch area into L1 in modified state before the timed
    // copy runs, so DL1 measures L1 hits, not the first misses.
    volatile char *P = static_cast<volatile char *>(Desc->scratch);
    for (uint32_t Off = 0; Off < Desc->scratch_size; Off += 64)
      P[Off] = P[Off];
  }
  if (D.What != Role::Account) {
    // The context-switch and page-fault window encloses the counter window.
    Disturbances Dis = disturbances();
    T->CtxStart = Dis.Switches;
    T->FaultStart = Dis.Faults;
    T->VoluntaryStart = Dis.Voluntary;
    // Every slot call reads it, so REF and the variants are timed after
    // the same system calls; REF's go to the blocked-time totals.
    T->CpuStartNs = threadCpuNs();
    T->EvFail =
        D.What == Role::Sample && Ctr.NumEvents && !readCounters(T, T->EvStart);
  }
  return D.Variant;
}

/// What decan added to the call that ends now, from begin_call's entry
/// on, less the loop's own \p Own cycles: its wall time where nothing
/// else ran on the thread's CPU meanwhile, so that decan's cost is part of
/// the process's CPU time and never the time the thread waited. A slot
/// switched out while its copy ran (blocked in it, preempted) counts the
/// copy's CPU time and the slot's fixed cost; an accounting call (no
/// context-switch read: it must stay cheap) that stayed longer than a
/// slot's fixed cost was preempted or faulted in the runtime, and counts
/// that fixed cost. Into the loop's InsideCycles (its own time plus this)
/// and the thread's DecanCycles.
static inline void addDecanCost(ThreadState *T, ThreadLoop *TL, uint64_t Own) {
  uint64_t Inside = rawTsc() - T->EntryTsc;
  uint64_t Cost = Inside > Own ? Inside - Own : 0;
  if (__builtin_expect(T->SlotSwitched, 0))
    Cost = std::min(Cost, T->SlotCopyCycles + Facts.SlotFixedCycles);
  else if (T->InFlightRole == Role::Account && Facts.SlotFixedCycles)
    Cost = std::min(Cost, Facts.SlotFixedCycles);
  T->SlotSwitched = false;
  TL->Tot.InsideCycles += Own + Cost;
  T->DecanCycles += Cost;
}

/// A loop with capped copies: their cap follows REF's largest trip count.
static inline void noteRefTrips(LoopState *L, uint64_t Trips) {
  if (L->CappedMask && Trips > L->MaxRefTrips.load(std::memory_order_relaxed))
    L->MaxRefTrips.store(Trips, std::memory_order_relaxed);
}

/// The original loop ran (timed, REF) after variant \p Of on the same input:
/// the call's real work for the totals, and the trip count the variant's
/// must equal.
static void endRerun(LoopState *L, ThreadState *T, ThreadLoop *TL,
                     uint64_t Cycles, uint64_t Trips) {
  if (__builtin_expect(T->InFlightCapped, 0))
    judgeCapped(L, T, T->InFlightRerunOf, Cycles, Trips);
  noteRefTrips(L, Trips);
  // Not checked for a switch: a slow one is no neighbour for later calls.
  TL->Tot.add(TL->Rot.Calls, Cycles, Trips, TL->Weight,
              isOutlier(TL->Tot, Cycles, Trips) ? Standing::Once
                                                : Standing::Clean);
  if (TL->Pending && TL->PendingCall == TL->Rot.Calls) {
    TL->Pending[kFieldRerunTrips] = Trips;
    TL->Pending[kFieldFlags] &= ~(uint64_t)DECAN_SAMPLE_NO_RERUN;
  }
  T->InFlightLoop = -1;
  T->InFlightVariant = -1;
  T->InFlightRerunOf = -1;
  addDecanCost(T, TL, Cycles);
}

/// Variant \p V's copy faulted (Guard.h) and its call was abandoned: no
/// sample, the variant leaves the rotation (said once), the program's FP
/// environment and errno come back, and the original runs on the same
/// input whatever the mode.
static int endFaulted(LoopState *L, ThreadState *T, int V,
                      const GuardFault &F) {
  if (noteFault(*L, V, F))
    addWarning("%s: %s faulted (%s): that call was abandoned and the "
               "original loop ran in its place; %s is not measured",
               L->Id, kVariantNames[V], L->FaultText[V], kVariantNames[V]);
  if (Cfg.Fp == FpEnv::Ftz)
    setMxcsr(T->SavedMxcsr);
  errno = T->SavedErrno;
  T->InFlightVariant = DECAN_REF;
  T->InFlightRerunOf = V;
  return 1;
}

DECAN_API int __decan_end_call(decan_loop_desc *Desc, int Variant,
                               uint64_t Cycles, uint64_t Trips) {
  auto *L = static_cast<LoopState *>(Desc->runtime_state);
  bool Rerun = Variant >= 0 && (Variant & DECAN_RERUN);
  int V = Variant >= 0 ? (Variant & ~DECAN_RERUN) : Variant;
  // A copy that ran out of iterations (abi.h, DECAN_TRIPS_CAPPED) is no
  // sample, and the original runs after it whatever the mode: its results
  // are not the loop's.
  bool Capped = Trips == DECAN_TRIPS_CAPPED && !Rerun && V != DECAN_REF;
  bool RunOriginal =
      !Rerun && V != DECAN_REF && (Sched.RunMode != Mode::Replace || Capped);
  ThreadState *T = TlsThread;
  // The copy has run: the scratch area is free for another thread's.
  if (T && T->ScratchHeld == L && !Rerun)
    releaseScratch(T);
  // A rerun follows the variant that begin_call chose; anything else (a
  // stale or foreign call) changes nothing.
  if (__builtin_expect(!L || !T || T->Gen != Reg.Generation ||
                           T->InFlightLoop != (int32_t)L->Index ||
                           T->InFlightVariant != (Rerun ? DECAN_REF : V) ||
                           T->InFlightRerunOf != (Rerun ? V : -1),
                       0))
    return RunOriginal;
  ThreadLoop *TL = peekThreadLoop(T, L->Index, std::memory_order_relaxed);
  if (Rerun) {
    endRerun(L, T, TL, Cycles, Trips);
    return 0;
  }
  if (V != DECAN_REF) {
    GuardFault F = takeFault();
    if (__builtin_expect(F.Sig != 0, 0))
      return endFaulted(L, T, V, F);
  }
  if (__builtin_expect(Capped, 0)) {
    // Judged once the original has run on the same input (endRerun).
    L->CappedCalls[V].fetch_add(1, std::memory_order_relaxed);
    T->InFlightCapped = true;
    T->CappedAt = Desc->iteration_cap;
    T->CappedCycles = Cycles;
  }
  uint64_t Call = TL->Rot.Calls;
  Role What = T->InFlightRole;
  bool Switched = false;
  // A sample or its REF neighbour with page faults (a first touch, paid by
  // whichever copy ran first) is excluded as a switched one is; whole-run
  // totals keep it (the program pays its faults too).
  bool Disturbed = false;
  uint64_t Ctx = 0;
  bool HaveCtx = false;
  if (What != Role::Account) {
    uint64_t EvEnd[kMaxEvents];
    bool EvFail = What == Role::Sample &&
                  (T->EvFail || (Ctr.NumEvents && !readCounters(T, EvEnd)));
    // Only REF's CPU time is kept: a variant's clock has stopped, so its
    // end needs no matching read.
    uint64_t CpuEnd = V == DECAN_REF ? threadCpuNs() : 0;
    Disturbances Dis = disturbances();
    if (V == DECAN_REF)
      TL->Tot.addProbed(Cycles, CpuEnd - T->CpuStartNs,
                        Dis.Voluntary - T->VoluntaryStart);
    Ctx = Dis.Switches;
    HaveCtx = true;
    Switched = Ctx != T->CtxStart;
    if (Switched) {
      // The copy's CPU time (REF's is the loop's own: none of decan's).
      uint64_t CopyNs = V == DECAN_REF ? 0 : threadCpuNs() - T->CpuStartNs;
      T->SlotSwitched = true;
      T->SlotCopyCycles = (uint64_t)((double)CopyNs * Facts.TscHz * 1e-9);
    }
    bool Faulted = Dis.Faults != T->FaultStart;
    Disturbed = Switched || Faulted;
    if (What == Role::Sample && !Capped) {
      uint64_t Flags = (Disturbed ? DECAN_SAMPLE_SWITCHED : 0) |
                       (Faulted ? DECAN_SAMPLE_FAULTED : 0);
      TL->Pending =
          record(TL, V, Cycles, Trips, Call, Flags, EvFail, T->EvStart, EvEnd);
      TL->PendingCall = Call;
    }
  } else if (TL->Weight > 1) {
    // A call that stands for others: its time is multiplied by its weight,
    // so a context switch since the last timed call (read after that call,
    // below: a system call just before a timed call would slow it) matters.
    Ctx = contextSwitches();
    HaveCtx = true;
    Switched = Ctx != TL->StrideCtx;
  }
  if (TL->Stride > 1) // the next decided call will stand for others
    TL->StrideCtx = HaveCtx ? Ctx : contextSwitches();
  if (What == Role::Post && TL->Pending && TL->PendingCall + 1 == Call) {
    uint64_t *R = TL->Pending;
    R[kFieldPostCycles] = Cycles;
    R[kFieldPostTrips] = Trips;
    R[kFieldFlags] = (R[kFieldFlags] & ~(uint64_t)DECAN_SAMPLE_NO_POST) |
                     (Disturbed ? DECAN_SAMPLE_POST_SWITCHED : 0);
  }
  // A post call is also the pre call of a slot that follows at once.
  if (What == Role::Pre || What == Role::Post) {
    TL->PreCall = Call;
    TL->PreCycles = Cycles;
    TL->PreTrips = Trips;
    TL->PreSwitched = Disturbed;
  }
  if (V == DECAN_REF)
    noteRefTrips(L, Trips);
  if (V == DECAN_REF || !RunOriginal) {
    TL->Tot.add(Call, Cycles, Trips, TL->Weight,
                standing(TL, Cycles, Trips, Switched, Disturbed));
  } else {
    ++TL->Tot.VariantCalls;
    TL->Tot.VariantCycles += Cycles;
  }
  if (V != DECAN_REF && Cfg.Fp == FpEnv::Ftz)
    setMxcsr(T->SavedMxcsr);
  if (V != DECAN_REF)
    errno = T->SavedErrno;
  if (RunOriginal) {
    // The stub now runs the original, timed, and reports it with
    // DECAN_RERUN: a crash there names the loop, REF, after V.
    T->InFlightVariant = DECAN_REF;
    T->InFlightRerunOf = V;
  } else {
    T->InFlightLoop = -1;
    T->InFlightVariant = -1;
    addDecanCost(T, TL, V == DECAN_REF ? Cycles : 0);
  }
  if (__builtin_expect(Sched.RunMode == Mode::Instance, 0)) {
    if (Call >= Sched.Instance + L->Plan.N - 1 &&
        !L->InstanceDone.exchange(true))
      finishInstanceIfDone();
  }
  return RunOriginal;
}

//===-- public C API (decan/runtime.h) ------------------------------------===//

DECAN_API const char *decan_version(void) { return DECAN_VERSION; }

DECAN_API int decan_active(void) {
  ensureInit();
  return Proc.Active;
}

DECAN_API int decan_flush(void) {
  ensureInit();
  if (!Proc.Active)
    return 0;
  return writeReport("flushed", 0, -1, -1) ? 0 : -1;
}
