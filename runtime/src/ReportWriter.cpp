//===- ReportWriter.cpp - The decan-raw-3 report --------------------------===//
//
// Part of decan. Free of LLVM; no exceptions.
//
//===----------------------------------------------------------------------===//

#include "ReportWriter.h"
#include "FpEnvGuard.h"
#include "JsonOut.h"
#include "Late.h"
#include "MachineFacts.h"
#include "Objects.h"
#include "Signals.h"
#include "State.h"
#include "decan/abi_names.h"
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

alignas(JsonOut) constinit char JsonMem[sizeof(JsonOut)] = {};

static size_t appendStr(char *Dst, size_t At, size_t Cap, const char *S) {
  while (*S && At + 1 < Cap)
    Dst[At++] = *S++;
  Dst[At] = 0;
  return At;
}

/// Builds the report paths without malloc or stdio (signal handlers too).
void buildPaths() {
  size_t N = appendStr(Proc.PathBuf, 0, sizeof(Proc.PathBuf), Cfg.OutputDir);
  N = appendStr(Proc.PathBuf, N, sizeof(Proc.PathBuf), "/decan.");
  char Num[24];
  JsonOut::formatU64((uint64_t)getpid(), Num);
  if (Facts.Rank[0]) {
    N = appendStr(Proc.PathBuf, N, sizeof(Proc.PathBuf), "rank");
    N = appendStr(Proc.PathBuf, N, sizeof(Proc.PathBuf), Facts.Rank);
    // A rank's fork has the rank's variables: its own name, not the rank's.
    if (getpid() != Facts.RankPid) {
      N = appendStr(Proc.PathBuf, N, sizeof(Proc.PathBuf), ".");
      N = appendStr(Proc.PathBuf, N, sizeof(Proc.PathBuf), Num);
    }
  } else {
    N = appendStr(Proc.PathBuf, N, sizeof(Proc.PathBuf), Num);
  }
  appendStr(Proc.PathBuf, N, sizeof(Proc.PathBuf), ".json");
  size_t M = appendStr(Proc.TmpBuf, 0, sizeof(Proc.TmpBuf), Proc.PathBuf);
  M = appendStr(Proc.TmpBuf, M, sizeof(Proc.TmpBuf), ".tmp.");
  appendStr(Proc.TmpBuf, M, sizeof(Proc.TmpBuf), Num);
}

static void emitVariant(JsonOut &J, const VariantData &VD) {
  J.beginObject();
  J.key("calls");
  J.u64(VD.Calls.load(std::memory_order_acquire));
  J.key("excluded");
  J.u64(VD.Excluded.load(std::memory_order_acquire));
  J.key("fields");
  J.beginArray();
  for (const char *F : decan_record_field_names)
    J.str(F);
  for (unsigned E = 0; E < Ctr.NumEvents; ++E)
    J.str(Ctr.Events[E].Name);
  J.endArray();
  J.key("records");
  J.beginArray();
  uint64_t N = VD.Raw.size();
  for (uint64_t I = 0; I < N; ++I) {
    const uint64_t *R = VD.Raw.at(I);
    J.beginArray();
    for (unsigned F = 0; F < kFieldEvents + Ctr.NumEvents; ++F)
      J.u64(R[F]);
    J.endArray();
  }
  J.endArray();
  J.key("online");
  J.beginObject();
  J.key("count");
  J.u64(VD.Online.Count);
  J.key("min");
  J.u64(VD.Online.Min);
  J.key("max");
  J.u64(VD.Online.Max);
  J.key("sum");
  J.u64(VD.Online.Sum);
  J.key("trips_sum");
  J.u64(VD.Online.TripsSum);
  J.endObject();
  J.endObject();
}

/// Calls that counted down after the thread's last timed call of a strided
/// loop (abi.h): the stub left them in the descriptor only (one thread), or
/// the runtime in the thread's own countdown (several). Read only while
/// the descriptor's page is mapped (its module may be unloaded by now).
static uint64_t tailCalls(const LoopState &L, const ThreadLoop *TL) {
  if (L.Threads.load(std::memory_order_relaxed) != 1) {
    // Each thread counts its own down (Runtime.cpp, begin_call).
    int64_t Left = (int64_t)TL->Countdown, Stride = (int64_t)TL->Stride;
    return Left ? (uint64_t)(Stride - std::clamp<int64_t>(Left, 1, Stride)) : 0;
  }
  if (!L.Strided.load(std::memory_order_relaxed) || !L.Desc)
    return 0;
  long Page = sysconf(_SC_PAGESIZE);
  uintptr_t At = reinterpret_cast<uintptr_t>(&L.Desc->countdown);
  unsigned char InCore;
  if (mincore(reinterpret_cast<void *>(At & ~(uintptr_t)(Page - 1)),
              (size_t)Page, &InCore) != 0)
    return 0;
  if (L.Desc->active == 3) // a region's open activation: depth, not calls
    return 0;
  int64_t Left = L.Desc->countdown;
  int64_t Stride = (int64_t)TL->Stride;
  return (uint64_t)(Stride - std::clamp<int64_t>(Left, 0, Stride));
}

/// `Key: {"V": Text(V), ...}` over the variants whose text is not empty.
template <typename TextFn>
static void emitPerVariant(JsonOut &J, const char *Key, TextFn Text) {
  J.key(Key);
  J.beginObject();
  for (int V = 0; V < DECAN_NUM_VARIANTS; ++V)
    if (const char *S = Text(V); S && *S) {
      J.key(kVariantNames[V]);
      J.str(S);
    }
  J.endObject();
}

/// Iteration caps (abi.h, capped_mask): the copies that carry one, the
/// calls each ran out of iterations in, and the variants taken out of the
/// rotation: copies that faulted (Guard.h) and those that ran far past
/// REF's work.
static void emitDroppedCopies(JsonOut &J, const LoopState &L) {
  emitPerVariant(J, "capped", [&](int V) -> const char * {
    return L.CappedMask & (1u << V) ? "iteration cap" : nullptr;
  });
  J.key("scratch_busy_calls");
  J.u64(L.ScratchBusyCalls.load(std::memory_order_relaxed));
  J.key("capped_calls");
  J.beginObject();
  for (int V = 0; V < DECAN_NUM_VARIANTS; ++V)
    if (uint64_t N = L.CappedCalls[V].load(std::memory_order_relaxed)) {
      J.key(kVariantNames[V]);
      J.u64(N);
    }
  J.endObject();
  static_assert(kCapFactor == 16, "the text below names the factor");
  uint32_t Faulted = L.FaultedMask.load(std::memory_order_acquire);
  emitPerVariant(J, "faulted", [&](int V) -> const char * {
    return Faulted & (1u << V) ? L.FaultText[V] : nullptr;
  });
  uint32_t Disabled = L.DisabledMask.load(std::memory_order_relaxed) & ~Faulted;
  emitPerVariant(J, "runaway", [&](int V) -> const char * {
    return Disabled & (1u << V) ? "did not end within 16x REF's work on the "
                                  "same input: its exit depends on what it "
                                  "removes"
                                : nullptr;
  });
}

/// One thread's `whole_run` of a loop: its totals, with the \p Tail calls
/// counted down since its last timed call as copies of the last clean one.
static void emitWholeRun(JsonOut &J, const LoopTotals &Tot, uint64_t Tail) {
  J.key("whole_run");
  J.beginObject();
  J.key("calls");
  J.u64(Tot.Calls + Tail);
  J.key("iterations");
  J.u64(Tot.Iterations + Tail * Tot.LastTrips);
  J.key("trips_known");
  J.u64(Tot.TripsKnown + (Tot.LastTrips ? Tail : 0));
  J.key("cycles");
  J.u64(Tot.Cycles + Tail * Tot.LastCycles);
  J.key("tail_calls");
  J.u64(Tail);
  J.key("timed_calls");
  J.u64(Tot.TimedCalls);
  J.key("timed_cycles");
  J.u64(Tot.TimedCycles);
  J.key("single_cycles");
  J.u64(Tot.SingleCycles);
  J.key("max_stride");
  J.u64(Tot.MaxStride);
  J.key("disturbed");
  J.u64(Tot.Disturbed);
  J.key("untimed_calls");
  J.u64(Tot.Untimed);
  J.key("variant_calls");
  J.u64(Tot.VariantCalls);
  J.key("variant_cycles");
  J.u64(Tot.VariantCycles);
  J.key("inside_cycles");
  J.u64(Tot.InsideCycles);
  J.key("dispatch_calls");
  J.u64(Tot.DispatchCalls);
  J.key("quick_calls");
  J.u64(Tot.QuickCalls);
  J.key("probed_calls");
  J.u64(Tot.ProbedCalls);
  J.key("probed_cycles");
  J.u64(Tot.ProbedCycles);
  J.key("probed_cpu_ns");
  J.u64(Tot.ProbedCpuNs);
  J.key("probed_voluntary_switches");
  J.u64(Tot.ProbedVoluntary);
  J.key("blocked_calls");
  J.u64(Tot.BlockedCalls);
  J.key("blocked_cycles");
  J.u64(Tot.BlockedCycles);
  J.key("blocked_cpu_ns");
  J.u64(Tot.BlockedCpuNs);
  J.key("calls_per_part");
  J.u64(Tot.Width);
  J.key("parts");
  J.beginArray();
  for (const LoopTotals::Bucket &B : Tot.B) {
    if (!B.Calls)
      break;
    J.beginArray();
    J.u64(B.Calls);
    J.u64(B.Iterations);
    J.u64(B.Cycles);
    J.endArray();
  }
  J.endArray();
  J.endObject();
}

static void emitLoop(JsonOut &J, const LoopState &L) {
  J.beginObject();
  J.key("id");
  J.str(L.Id);
  J.key("function");
  J.str(L.Function);
  J.key("file");
  J.str(L.File);
  J.key("line");
  J.u64(L.Line);
  if (*L.Object) {
    J.key("object");
    J.str(L.Object);
  }
  if (*L.Source) {
    J.key("source");
    J.str(L.Source);
  }
  if (L.IterationStep) {
    J.key("iteration_step");
    J.u64(L.IterationStep);
  }
  J.key("variant_mask");
  J.u64(L.VariantMask);
  // Late variants (Late.h): still waiting for its copies (the calls
  // counted), or measured since its pack was installed.
  if (L.LateWaiting) {
    J.key("late");
    J.str("waiting");
    J.key("late_calls_seen");
    J.u64(L.LateCalls.load(std::memory_order_relaxed));
  } else if (L.LateSinceTsc) {
    J.key("late");
    J.str("installed");
    J.key("late_since_s");
    J.dbl(Facts.TscHz > 0 && L.LateSinceTsc > Facts.TscStart
              ? (double)(L.LateSinceTsc - Facts.TscStart) / Facts.TscHz
              : 0.0);
    J.key("calls_before_late");
    J.u64(L.CallsBeforeLate);
  }
  J.key("selected");
  J.boolean(L.Selected);
  J.key("region");
  J.boolean(L.IsRegion);
  emitPerVariant(J, "store_policy", [&](int V) -> const char * {
    return L.StorePolicy[V] != kNoStorePolicy
               ? decan_store_policy_name(L.StorePolicy[V])
               : nullptr;
  });
  J.key("eligible");
  J.beginArray();
  for (unsigned I = 0; I < L.Plan.N; ++I)
    J.str(kVariantNames[L.Plan.Order[I]]);
  J.endArray();
  emitPerVariant(J, "unavailable", [&](int V) { return L.Unavailable[V]; });
  emitPerVariant(J, "unavailable_why", [&](int V) -> const char * {
    return L.Unavailable[V] ? L.UnavailableWhy[V] : nullptr;
  });
  emitDroppedCopies(J, L);
  J.key("chased_loads");
  J.u64(L.ChasedLoads);
  if (L.DL1MemoryCallBytes) {
    J.key("dl1_memory_call_bytes");
    J.u64(L.DL1MemoryCallBytes);
  }
  J.key("calls_deleted");
  J.beginArray();
  for (int V = 0; V < DECAN_NUM_VARIANTS; ++V)
    if (L.CallsDeletedMask & (1u << V))
      J.str(kVariantNames[V]);
  J.endArray();
  // GROUPING: the loop's memory groups, in variant order (DL1_Gk, NO_Gk).
  J.key("groups");
  J.beginArray();
  for (uint32_t G = 0; G < L.NumGroups && G < DECAN_MAX_GROUPS; ++G) {
    J.beginObject();
    J.key("name");
    J.str(L.GroupName[G]);
    J.key("accesses");
    J.u64(L.GroupAccesses[G]);
    J.endObject();
  }
  J.endArray();
  J.key("n_groups");
  J.u64(L.NumGroups);
  emitPerVariant(J, "bound", [&](int V) -> const char * {
    return L.BoundMask & (1u << V) ? "drops a dependence through memory"
                                   : nullptr;
  });
  J.key("threads");
  J.beginArray();
  uint32_t NT = std::min<uint32_t>(
      Reg.NumThreads.load(std::memory_order_acquire), kMaxThreads);
  for (uint32_t TI = 0; TI < NT; ++TI) {
    ThreadState *T = Reg.Threads[TI].load(std::memory_order_acquire);
    if (!T || T->Gen != Reg.Generation)
      continue;
    ThreadLoop *TL = peekThreadLoop(T, L.Index);
    if (!TL)
      continue;
    if (!TL->Rot.Calls || L.Yielded.load(std::memory_order_relaxed))
      continue; // a loop that ran measured loops: its time holds theirs
    J.beginObject();
    J.key("thread");
    J.u64(T->Index);
    J.key("tid");
    J.i64(T->Tid);
    const LoopTotals &Tot = TL->Tot;
    // The tail of a strided loop counts as the last clean timed call, the
    // neighbour its calls would have been weighted by.
    uint64_t Tail = Tot.Calls ? tailCalls(L, TL) : 0;
    J.key("calls_seen");
    J.u64(TL->Rot.Calls + Tail);
    J.key("slots");
    J.u64(TL->Rot.Slots);
    emitWholeRun(J, Tot, Tail);
    J.key("variants");
    J.beginObject();
    for (int V = 0; V < DECAN_NUM_VARIANTS; ++V) {
      if (!TL->V[V].Calls.load(std::memory_order_relaxed))
        continue;
      J.key(kVariantNames[V]);
      emitVariant(J, TL->V[V]);
    }
    J.endObject();
    J.endObject();
  }
  J.endArray();
  J.endObject();
}

static void emitReport(JsonOut &J, const char *Status, int Sig, int CrashLoop,
                       int CrashVariant) {
  J.beginObject();
  J.key("format");
  J.str("decan-raw-3");
  J.key("version");
  J.str(DECAN_VERSION);
  J.key("status");
  J.str(Status);
  J.key("crash");
  if (Sig) {
    J.beginObject();
    J.key("signal");
    J.str(signalName(Sig));
    J.key("signo");
    J.i64(Sig);
    LoopState *L = CrashLoop >= 0 && (unsigned)CrashLoop < kMaxLoops
                       ? Reg.Loops[CrashLoop].load()
                       : nullptr;
    J.key("loop");
    if (L)
      J.str(L->Id);
    else
      J.null();
    J.key("variant");
    if (L && CrashVariant >= 0 && CrashVariant < DECAN_NUM_VARIANTS)
      J.str(kVariantNames[CrashVariant]);
    else
      J.null();
    J.key("rerun_after");
    if (L && Proc.CrashRerunOf >= 0 && Proc.CrashRerunOf < DECAN_NUM_VARIANTS)
      J.str(kVariantNames[Proc.CrashRerunOf]);
    else
      J.null();
    J.endObject();
  } else {
    J.null();
  }

  J.key("process");
  J.beginObject();
  J.key("pid");
  J.i64(getpid());
  // Who started it (decan run, a launcher, a measured parent) and whether
  // it is a fork of a measured process without an exec since.
  J.key("ppid");
  J.i64(Proc.ParentPid);
  J.key("forked");
  J.boolean(Proc.Forked);
  J.key("rank");
  if (Facts.Rank[0]) {
    uint64_t R = 0;
    for (const char *C = Facts.Rank; *C; ++C)
      R = R * 10 + (uint64_t)(*C - '0');
    J.u64(R);
  } else {
    J.null();
  }
  J.key("argv");
  J.beginArray();
  for (size_t I = 0; I < Facts.ArgvLen;) {
    size_t E = I;
    while (E < Facts.ArgvLen && Facts.Argv[E])
      ++E;
    J.strN(Facts.Argv + I, E - I);
    I = E + 1;
  }
  J.endArray();
  J.key("host");
  J.str(Facts.Host);
  // The run's own time, for program shares: wall TSC cycles and the CPU
  // time of all threads, both since the runtime started measuring.
  // A wait for late variants (DECAN_LATE_WAIT_MS) is decan's, not the
  // program's: out of its wall time, and said.
  uint64_t Wall = Facts.TscStart ? decan_tsc_stop() - Facts.TscStart : 0;
  uint64_t LateWait = std::min(lateWaitCycles(), Wall);
  J.key("wall_cycles");
  J.u64(Wall - LateWait);
  if (LateWait) {
    J.key("late_wait_cycles");
    J.u64(LateWait);
    J.key("late_wait_at_s");
    J.dbl(Facts.TscHz > 0 && lateWaitBeganTsc() > Facts.TscStart
              ? (double)(lateWaitBeganTsc() - Facts.TscStart) / Facts.TscHz
              : 0);
  }
  if (uint64_t Cpu = processCpuUs()) {
    J.key("cpu_us");
    J.u64(Cpu > Facts.CpuStartUs ? Cpu - Facts.CpuStartUs : 0);
  }
  if (uint64_t Wait = mainThreadRunqueueWaitUs()) {
    // (Not while the program waited for late variants: decan's build.)
    // The run it is a share of: the same interval, on the same clock.
    uint64_t Ns = nowNs();
    uint64_t RunNs =
        Ns > Facts.RunqueueWaitStartNs ? Ns - Facts.RunqueueWaitStartNs : 0;
    uint64_t RunUs = (RunNs - std::min(RunNs, lateWaitNs())) / 1000;
    uint64_t Since =
        Wait > Facts.RunqueueWaitStartUs ? Wait - Facts.RunqueueWaitStartUs : 0;
    J.key("main_runqueue_wait_us");
    J.u64(std::min(Since - std::min(Since, lateWaitRunqueueUs()), RunUs));
    J.key("main_runqueue_run_us");
    J.u64(RunUs);
  }
  // The loops' inside_cycles hold decan's cost on the threads' CPU, not
  // their waits (Runtime.cpp, addDecanCost): the tool takes it out of the
  // CPU time as it is.
  J.key("decan_cost_clock");
  J.str("cpu");
  J.key("threads");
  J.u64(std::min<uint32_t>(Reg.NumThreads.load(), kMaxThreads));
  J.endObject();

  J.key("machine");
  J.beginObject();
  J.key("cpu");
  J.str(Facts.CpuName);
  J.key("tsc_hz");
  J.dbl(Facts.TscHz);
  J.key("tsc_source");
  J.str(Facts.TscSource);
  J.key("logical_cpus");
  J.i64(Facts.LogicalCpus);
  J.endObject();

  J.key("config");
  J.beginObject();
  J.key("mode");
  J.str(modeName(Cfg.RunMode));
  J.key("loops");
  J.str(Cfg.Loops);
  J.key("variants");
  J.beginArray();
  for (unsigned I = 0; I < Cfg.NumVariants; ++I)
    J.str(kVariantNames[Cfg.Variants[I]]);
  J.endArray();
  J.key("reps");
  J.u64(Cfg.Reps);
  J.key("instance");
  J.u64(Cfg.Instance);
  J.key("warmup");
  J.u64(Cfg.Warmup);
  J.key("sampling");
  J.str("slots: pre REF, sample, post REF; the first reps*N slots back to "
        "back, then a slot density of about reps*N/call (Schedule.h)");
  J.key("events");
  J.beginArray();
  for (unsigned I = 0; I < Cfg.NumEvents; ++I)
    J.str(Cfg.Events[I]);
  J.endArray();
  J.key("max_records");
  J.u64(Cfg.MaxRecords);
  J.key("output");
  J.str(Cfg.OutputDir);
  J.key("fp_env");
  J.str(Cfg.Fp == FpEnv::Keep
            ? "keep: MXCSR left as the program set it, for every variant"
            : "ftz: MXCSR: exceptions masked, FTZ, DAZ; set by begin_call, "
              "restored by end_call, for every variant but REF (REF runs in "
              "the program's MXCSR)");
  J.endObject();

  J.key("probe");
  J.beginObject();
  J.key("empty_region_cycles");
  J.beginObject();
  J.key("min");
  J.u64(Facts.ProbeMin);
  J.key("median");
  J.u64(Facts.ProbeMedian);
  J.key("samples");
  J.u64(kProbeSamples);
  J.endObject();
  J.key("call_cost_centicycles");
  J.u64(Facts.ProbeCallCentiCycles);
  J.key("sequence");
  J.str("lfence;rdtsc ... rdtscp;lfence");
  J.key("subtracted");
  J.boolean(false);
  J.key("slot_fixed_cycles");
  J.u64(Facts.SlotFixedCycles);
  J.key("countdown_centicycles");
  J.u64(Facts.CountdownCentiCycles);
  J.key("dispatch_centicycles");
  J.u64(Facts.DispatchCentiCycles);
  J.key("dispatch_quick_centicycles");
  J.u64(Facts.DispatchQuickCentiCycles);
  J.key("slot_budget");
  J.str("1/50 of a loop's time once past the first reps*N slots");
  J.endObject();

  J.key("counters");
  J.beginObject();
  J.key("available");
  J.boolean(Ctr.CountersOk);
  J.key("events");
  J.beginArray();
  for (unsigned E = 0; E < Ctr.NumEvents; ++E)
    J.str(Ctr.Events[E].Name);
  J.endArray();
  J.key("unavailable");
  J.beginArray();
  for (unsigned I = 0; I < Ctr.NumUnavail; ++I) {
    J.beginObject();
    J.key("name");
    J.str(Ctr.Unavail[I][0]);
    J.key("error");
    J.str(Ctr.Unavail[I][1]);
    J.endObject();
  }
  J.endArray();
  J.key("message");
  J.str(Ctr.CountersMsg);
  J.key("read");
  J.str(Ctr.Rdpmc ? "rdpmc" : "read");
  J.key("context_switches");
  J.str("getrusage(RUSAGE_THREAD) ru_nvcsw+ru_nivcsw delta");
  J.endObject();

  J.key("warnings");
  J.beginArray();
  unsigned NW = std::min(Proc.NumWarnings.load(), kMaxWarnings);
  for (unsigned I = 0; I < NW; ++I)
    J.str(Proc.Warnings[I]);
  J.endArray();

  emitObjects(J);

  J.key("loops");
  J.beginArray();
  uint32_t NL = std::min<uint32_t>(Reg.NumLoops.load(std::memory_order_acquire),
                                   kMaxLoops);
  for (uint32_t I = 0; I < NL; ++I)
    if (LoopState *L = Reg.Loops[I].load(std::memory_order_acquire);
        L && !L->Superseded.load(std::memory_order_acquire))
      // (a superseded one: its successor reports it; a base copy's loop
      // that never ran has no state: Late.h, waitingLoopState)
      emitLoop(J, *L);
  J.endArray();
  J.endObject();
}

/// Async-signal-safe: no malloc, no stdio, no locks that a signal could
/// interrupt (one atomic owner word; a nested writer gives up at once).
bool writeReport(const char *Status, int Sig, int CrashLoop, int CrashVariant) {
  if (!Proc.Active)
    return true;
  FpEnvGuard Fp; // numbers are formatted, statistics read
  int Me = gettidNow();
  for (int Spin = 0;; ++Spin) {
    int Expected = 0;
    if (Proc.WriterTid.compare_exchange_strong(Expected, Me))
      break;
    if (Expected == Me || Spin > 2000)
      return false; // interrupted our own write, or another never finishes
    struct timespec Ts = {0, 1000000};
    nanosleep(&Ts, nullptr);
  }
  buildPaths();
  bool Ok = false;
  int Fd = open(Proc.TmpBuf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (Fd >= 0) {
    JsonOut *J = new (JsonMem) JsonOut(Fd);
    emitReport(*J, Status, Sig, CrashLoop, CrashVariant);
    Ok = J->flush();
    Ok &= close(Fd) == 0;
    if (Ok)
      Ok = rename(Proc.TmpBuf, Proc.PathBuf) == 0;
    if (!Ok)
      unlink(Proc.TmpBuf);
  }
  if (!Ok) {
    static const char Msg[] = "decan: error: cannot write report ";
    ssize_t R = write(2, Msg, sizeof(Msg) - 1);
    R = write(2, Proc.PathBuf, strlen(Proc.PathBuf));
    R = write(2, "\n", 1);
    (void)R;
  }
  Proc.WriterTid.store(0);
  return Ok;
}

} // namespace decan::rt
