//===- Runtime.cpp - decan runtime: registration, rotation, reports -------===//
//
// Part of decan. Free of LLVM; no exceptions; C-linkable entry points.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The state machine behind decan/abi.h and decan/runtime.h. Everything the
/// hot path touches is per thread (ThreadState, reached through one
/// initial-exec TLS pointer) or read-only after registration (LoopState), so
/// __decan_begin_call/__decan_end_call take no lock and allocate nothing
/// except a record chunk once per RecordBuffer::kChunkRecords calls, outside
/// the timed region. docs/runtime.md describes the behaviour; this file says
/// how.
//===----------------------------------------------------------------------===//

#include "Runtime.h"
#include "Config.h"
#include "Counters.h"
#include "FpEnvGuard.h"
#include "JsonOut.h"
#include "Objects.h"
#include "Records.h"
#include "Schedule.h"
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

#define DECAN_API extern "C" __attribute__((visibility("default")))

namespace decan::rt {
namespace {

constexpr unsigned kMaxLoops = 65536;
/// Per-thread loop records live in lazily allocated pages of this many
/// entries, so a thread costs memory only for the loop ranges it calls.
constexpr unsigned kLoopPageBits = 10, kLoopPage = 1u << kLoopPageBits;
constexpr unsigned kMaxThreads = 1024;
constexpr unsigned kMaxRegionDepth = 16;
constexpr unsigned kMaxRegions = 256;
constexpr unsigned kMaxWarnings = 32;
constexpr unsigned kProbeSamples = 1001;
constexpr uint8_t kNoStorePolicy = 0xFF;
/// Unmasks nothing, flushes denormals: exception masks | FTZ | DAZ.
constexpr uint32_t kMxcsrMasks = 0x1F80, kMxcsrFtz = 0x8000, kMxcsrDaz = 0x0040,
                   kMxcsrFlags = 0x003F;

struct LoopState {
  decan_loop_desc *Desc = nullptr;
  // Copies: a module that registered loops may be unloaded before the
  // report is written, so the writer never reads the descriptor.
  const char *Id = "", *Function = "", *File = "";
  uint32_t Line = 0, VariantMask = 0, BoundMask = 0;
  uint32_t CallsDeletedMask = 0; ///< minfo->calls_deleted_mask
  uint32_t Index = 0;
  /// decan_store_policy per variant as the producer recorded it (minfo);
  /// kNoStorePolicy where it recorded none.
  uint8_t StorePolicy[DECAN_NUM_VARIANTS] = {};
  LoopPlan Plan;
  bool Selected = false;
  bool IsRegion = false;
  /// Why a requested variant is not measured; null when it is eligible.
  const char *Unavailable[DECAN_NUM_VARIANTS] = {};
  std::atomic<bool> InstanceDone{false};
  /// It called a measured loop: it stopped being timed (begin_call).
  std::atomic<bool> Yielded{false};
  /// Threads that called the loop. The stub's countdown is one per loop,
  /// so only a loop of one thread gets an accounting stride.
  mutable std::atomic<uint32_t> Threads{0};
  /// The runtime set a stride once: the stub counts calls down.
  std::atomic<bool> Strided{false};
};

struct ThreadLoop {
  SamplerState Rot;
  LoopTotals Tot;
  VariantData V[DECAN_NUM_VARIANTS];
  /// The last "pre" REF call (Schedule.h), for the sample that follows it.
  uint64_t PreCall = 0, PreCycles = 0, PreTrips = 0;
  bool PreSwitched = false;
  /// The last sample's raw record (null when it went online) and call, for
  /// the original run and the "post" REF call that follow it.
  uint64_t *Pending = nullptr;
  uint64_t PendingCall = 0;
  /// The accounting stride last set (the next decided call's weight), the
  /// weight of the call in flight, and the largest stride worth its cost.
  uint64_t Stride = 1, Weight = 1, StrideCap = 1;
};

struct ThreadLoopPage {
  std::atomic<ThreadLoop *> E[kLoopPage];
};

struct RegionFrame {
  uint32_t Loop;
  bool Measured;
  bool EvFail;
  uint64_t Call, Ctx, T0;
  uint64_t Ev[kMaxEvents];
};

struct ThreadState {
  uint64_t Gen = 0;
  uint32_t Index = 0;
  int32_t Tid = 0;
  // In flight between begin_call and end_call (also named by a crash).
  int32_t InFlightLoop = -1;
  int32_t InFlightVariant = -1;
  /// The variant whose original run is in flight (-1: none): REF then runs
  /// the program's loop after that variant.
  int32_t InFlightRerunOf = -1;
  Role InFlightRole = Role::Account;
  bool EvFail = false;
  uint32_t SavedMxcsr = 0;
  int SavedErrno = 0; ///< a variant's libm calls may set errno: restored
  uint64_t CtxStart = 0;
  /// TSC at begin_call's entry: a timed call's whole cost in the runtime.
  uint64_t EntryTsc = 0;
  uint64_t EvStart[kMaxEvents] = {};
  unsigned RegionDepth = 0, RegionOverflow = 0;
  RegionFrame Regions[kMaxRegionDepth];
  PerfCounter Counters[kMaxEvents];
  /// Written by the owning thread only; read by the report writer.
  std::atomic<ThreadLoopPage *> LoopPages[kMaxLoops / kLoopPage];
};

/// The thread's record of loop `Index`, null when it has none yet.
inline ThreadLoop *
peekThreadLoop(const ThreadState *T, uint32_t Index,
               std::memory_order O = std::memory_order_acquire) {
  ThreadLoopPage *P = T->LoopPages[Index >> kLoopPageBits].load(O);
  return P ? P->E[Index & (kLoopPage - 1)].load(O) : nullptr;
}

struct EventInfo {
  perf_event_attr Attr;
  const char *Name;
};

// All state is constant-initialized: module constructors of instrumented
// code may call in before this library's own constructors ran.
constinit Config Cfg;
constinit ScheduleParams Sched;
constinit pthread_once_t InitOnce = PTHREAD_ONCE_INIT;
constinit std::atomic<bool> InitDone{false};
constinit bool Active = false;
constinit uint64_t Generation = 1;
constinit pthread_mutex_t RegMutex = PTHREAD_MUTEX_INITIALIZER;

constinit std::atomic<LoopState *> Loops[kMaxLoops] = {};
/// Never above kMaxLoops: readers index Loops[] and the per-thread pages
/// with it.
constinit std::atomic<uint32_t> NumLoops{0};
/// Loops refused because the table was full (their descriptors stay
/// inactive).
constinit std::atomic<uint32_t> DroppedLoops{0};
constinit std::atomic<ThreadState *> Threads[kMaxThreads] = {};
constinit std::atomic<uint32_t> NumThreads{0};
constinit LoopState *Regions[kMaxRegions] = {};
constinit std::atomic<uint32_t> NumRegions{0};

constinit EventInfo Events[kMaxEvents] = {};
constinit unsigned NumEvents = 0;
constinit char Unavail[kMaxEvents][2][192] = {}; // name, reason
constinit unsigned NumUnavail = 0;
constinit bool CountersOk = false;
constinit bool Rdpmc = false;
constinit char CountersMsg[512] = {};

constinit char Warnings[kMaxWarnings][256] = {};
constinit std::atomic<unsigned> NumWarnings{0};

constinit char CpuName[128] = "unknown";
constinit char Host[256] = "";
constinit char Argv[8192] = {};
constinit size_t ArgvLen = 0;
constinit double TscHz = 0;
constinit const char *TscSource = "calibrated";
constinit long LogicalCpus = 0;
constinit uint64_t ProbeMin = 0, ProbeMedian = 0;
/// TSC when measuring began (after the runtime's own start-up work).
constinit uint64_t TscStart = 0;
/// Process CPU time (us) at TscStart: the runtime's start-up is not the run.
constinit uint64_t CpuStartUs = 0;
/// Fixed cost of a sampling slot beyond its calls: six context-switch reads.
constinit uint64_t SlotFixedCycles = 0;
/// Cost of the stub's countdown on a call that does not reach the runtime,
/// in 1/100 cycle (measureCountdownCost).
constinit uint64_t CountdownCentiCycles = 0;
/// Sampling budget: slots may cost at most 1/kSlotBudgetInverse of a loop's
/// time once the run is past its first K*N slots (Schedule.h).
constexpr uint64_t kSlotBudgetInverse = 50;
/// The largest accounting stride (abi.h, countdown; Config::AccountBudget).
constexpr uint64_t kMaxStride = 1u << 16;
/// Timed calls before a stride is first considered, and between updates.
constexpr uint64_t kStrideMinCalls = 16, kStrideUpdateMask = 63;
constinit char Rank[24] = "";

constinit std::atomic<int> WriterTid{0};
/// With a crash in the original run after a variant: that variant, else -1.
constinit int CrashRerunOf = -1;
constinit std::atomic<bool> FinalDone{false};
constinit bool HooksInstalled = false;
constinit struct sigaction OldActions[65] = {};
constinit char PathBuf[2200] = {}, TmpBuf[2300] = {};
alignas(JsonOut) constinit char JsonMem[sizeof(JsonOut)] = {};

thread_local ThreadState *TlsThread __attribute__((tls_model("initial-exec"))) =
    nullptr;
thread_local uint64_t TlsRefused __attribute__((tls_model("initial-exec"))) = 0;

const int kSignals[] = {SIGINT, SIGTERM, SIGSEGV, SIGBUS, SIGFPE, SIGILL};

//===-- small helpers -----------------------------------------------------===//

int32_t gettidNow() { return (int32_t)syscall(SYS_gettid); }

__attribute__((format(printf, 1, 2))) void addWarning(const char *Fmt, ...) {
  unsigned I = NumWarnings.load(std::memory_order_relaxed);
  do {
    if (I >= kMaxWarnings)
      return;
  } while (!NumWarnings.compare_exchange_weak(I, I + 1));
  va_list Ap;
  va_start(Ap, Fmt);
  vsnprintf(Warnings[I], sizeof(Warnings[I]), Fmt, Ap);
  va_end(Ap);
}

inline uint32_t getMxcsr() {
  uint32_t V;
  __asm__ __volatile__("stmxcsr %0" : "=m"(V));
  return V;
}
inline void setMxcsr(uint32_t V) {
  __asm__ __volatile__("ldmxcsr %0" ::"m"(V));
}

/// Voluntary + involuntary context switches of the calling thread so far.
inline uint64_t contextSwitches() {
  struct rusage R;
  if (getrusage(RUSAGE_THREAD, &R) != 0)
    return 0;
  return (uint64_t)R.ru_nvcsw + (uint64_t)R.ru_nivcsw;
}

inline bool readCounters(ThreadState *T, uint64_t *Out) {
  bool Ok = true;
  for (unsigned E = 0; E < NumEvents; ++E)
    Ok &= T->Counters[E].read(Out[E]);
  return Ok;
}

const char *signalName(int Sig) {
  switch (Sig) {
  case SIGINT:
    return "SIGINT";
  case SIGTERM:
    return "SIGTERM";
  case SIGSEGV:
    return "SIGSEGV";
  case SIGBUS:
    return "SIGBUS";
  case SIGFPE:
    return "SIGFPE";
  case SIGILL:
    return "SIGILL";
  default:
    return "SIGNAL";
  }
}

//===-- startup facts -----------------------------------------------------===//

void readMachineFacts() {
  if (FILE *F = fopen("/proc/cpuinfo", "r")) {
    char Line[512];
    while (fgets(Line, sizeof(Line), F)) {
      if (strncmp(Line, "model name", 10) != 0)
        continue;
      const char *C = strchr(Line, ':');
      if (!C)
        break;
      ++C;
      while (*C == ' ')
        ++C;
      snprintf(CpuName, sizeof(CpuName), "%s", C);
      CpuName[strcspn(CpuName, "\n")] = 0;
      break;
    }
    fclose(F);
  }
  LogicalCpus = sysconf(_SC_NPROCESSORS_ONLN);
  if (gethostname(Host, sizeof(Host) - 1) != 0)
    Host[0] = 0;
  int Fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (Fd >= 0) {
    ssize_t N = read(Fd, Argv, sizeof(Argv) - 1);
    ArgvLen = N > 0 ? (size_t)N : 0;
    close(Fd);
  }
  static const char *const RankVars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK",
                                         "PMIX_RANK", "SLURM_PROCID",
                                         "MV2_COMM_WORLD_RANK"};
  Rank[0] = 0;
  for (const char *V : RankVars) {
    const char *S = getenv(V);
    if (!S || !*S || strspn(S, "0123456789") != strlen(S) || strlen(S) > 18)
      continue;
    snprintf(Rank, sizeof(Rank), "%s", S);
    break;
  }
}

uint64_t nowNs() {
  struct timespec Ts;
  clock_gettime(CLOCK_MONOTONIC, &Ts);
  return (uint64_t)Ts.tv_sec * 1000000000ull + (uint64_t)Ts.tv_nsec;
}

/// /proc/cpuinfo has no TSC rate on AMD or in KVM guests, so calibrate:
/// 20 ms of CLOCK_MONOTONIC against the TSC.
void calibrateTsc() {
  uint64_t N0 = nowNs(), T0 = decan_tsc_start();
  uint64_t N1;
  do
    N1 = nowNs();
  while (N1 - N0 < 20000000ull);
  uint64_t T1 = decan_tsc_stop();
  TscHz = (double)(T1 - T0) * 1e9 / (double)(N1 - N0);
  TscSource = "calibrated against CLOCK_MONOTONIC (20 ms)";
}

void measureProbe() {
  uint64_t S[kProbeSamples];
  for (unsigned I = 0; I < kProbeSamples; ++I) {
    uint64_t A = decan_tsc_start();
    uint64_t B = decan_tsc_stop();
    S[I] = B - A;
  }
  std::sort(S, S + kProbeSamples);
  ProbeMin = S[0];
  ProbeMedian = S[kProbeSamples / 2];
}

/// A descriptor's two stub fields, for measureCountdownCost().
struct CountdownProbe {
  volatile uint32_t Active;
  volatile int32_t Countdown;
};

/// A 4-iteration call behind the stub's test of \p D, shaped as the
/// plugin emits it (abi.h): the active path out of line, counting down, and
/// back to the loop; the countdown never reaches 0 here.
__attribute__((noinline)) uint64_t countdownWork(CountdownProbe *D,
                                                 const uint64_t *A, long N) {
  __asm__ __volatile__("movl (%0), %%eax\n\t"
                       "testl %%eax, %%eax\n\t"
                       "jne 2f\n"
                       "1:\n\t"
                       "jmp 3f\n"
                       "2:\n\t"
                       "cmpl $2, %%eax\n\t"
                       "jne 1b\n\t"
                       "movl 4(%0), %%eax\n\t"
                       "decl %%eax\n\t"
                       "movl %%eax, 4(%0)\n\t"
                       "testl %%eax, %%eax\n\t"
                       "jg 1b\n\t"
                       "jmp 1b\n"
                       "3:"
                       :
                       : "r"(D)
                       : "eax", "cc", "memory");
  uint64_t S = 0;
  for (long I = 0; I < N; ++I)
    S += A[I] * A[I];
  return S;
}

/// \p Calls back-to-back calls of countdownWork.
__attribute__((noinline)) uint64_t countdownRun(CountdownProbe *D,
                                                const uint64_t *A, long Calls,
                                                volatile long *Trips,
                                                uint64_t *Sink) {
  uint64_t S = 0;
  uint64_t T0 = decan_tsc_start();
  for (long C = 0; C < Calls; ++C)
    S += countdownWork(D, A + (C & 31), *Trips);
  uint64_t T1 = decan_tsc_stop();
  *Sink += S;
  return T1 - T0;
}

/// What the countdown adds to a call that does not go to the runtime, in
/// 1/100 cycle: the same short calls with the stub counting down and with
/// it inactive, run alternately; the median of the differences. The tool
/// adds it per untimed call of a strided loop to decan's cost.
void measureCountdownCost() {
  constexpr long kCalls = 20000;
  constexpr unsigned kReps = 9;
  uint64_t A[64];
  for (unsigned I = 0; I < 64; ++I)
    A[I] = I;
  volatile long Trips = 4;
  uint64_t Sink = 0;
  int64_t Diff[kReps];
  for (unsigned Rep = 0; Rep < kReps; ++Rep) {
    CountdownProbe Inactive{0, 0}, Counting{2, 1 << 30};
    uint64_t Off = countdownRun(&Inactive, A, kCalls, &Trips, &Sink);
    uint64_t On = countdownRun(&Counting, A, kCalls, &Trips, &Sink);
    Diff[Rep] = (int64_t)On - (int64_t)Off;
  }
  std::sort(Diff, Diff + kReps);
  int64_t Median = Diff[kReps / 2];
  CountdownCentiCycles = Median > 0 ? (uint64_t)Median * 100 / kCalls : 0;
}

/// CPU time of all the process's threads (us), 0 when unknown.
uint64_t processCpuUs() {
  struct rusage Ru;
  if (getrusage(RUSAGE_SELF, &Ru) != 0)
    return 0;
  return (uint64_t)Ru.ru_utime.tv_sec * 1000000 + Ru.ru_utime.tv_usec +
         (uint64_t)Ru.ru_stime.tv_sec * 1000000 + Ru.ru_stime.tv_usec;
}

/// The context-switch reads around a slot's three calls, timed once.
void measureSlotCost() {
  uint64_t S[9];
  for (uint64_t &X : S) {
    uint64_t A = decan_tsc_start();
    (void)contextSwitches();
    X = decan_tsc_stop() - A;
  }
  std::sort(S, S + 9);
  SlotFixedCycles = 6 * S[4];
}

/// The mean gap between slots that keeps their cost within the budget: a
/// slot adds one variant call (about a mean call) and its fixed cost.
inline uint64_t slotGapCap(const ThreadLoop *TL) {
  uint64_t Mean = TL->Tot.Calls ? TL->Tot.Cycles / TL->Tot.Calls : 0;
  if (Mean == 0)
    Mean = 1;
  return (Mean + SlotFixedCycles) * kSlotBudgetInverse / Mean;
}

/// The largest accounting stride worth its cost (Schedule.h): the runtime's
/// measured cost per timed call, plus the stub's two probes around it.
inline uint64_t strideCap(const ThreadLoop *TL) {
  const LoopTotals &Tot = TL->Tot;
  uint64_t Own = Tot.TimedCycles + Tot.VariantCycles;
  uint64_t Inside = Tot.InsideCycles > Own ? Tot.InsideCycles - Own : 0;
  return accountingStride(Inside / Tot.TimedCalls + 2 * ProbeMedian,
                          Tot.Cycles / Tot.Calls, Cfg.AccountBudget,
                          kMaxStride);
}

void setupEvents() {
  NumEvents = 0;
  NumUnavail = 0;
  CountersOk = false;
  Rdpmc = false;
  CountersMsg[0] = 0;
  if (Cfg.NumEvents == 0) {
    snprintf(CountersMsg, sizeof(CountersMsg),
             "no events requested (DECAN_EVENTS unset); timing by rdtsc");
    return;
  }
  char FirstErr[192] = "";
  bool AnyUnknown = false;
  for (unsigned I = 0; I < Cfg.NumEvents; ++I) {
    perf_event_attr Attr;
    char Err[192];
    const char *Name = Cfg.Events[I];
    bool Known = encodeEvent(Name, Attr, Err, sizeof(Err));
    PerfCounter Probe;
    if (Known && Probe.open(Attr, Name, Err, sizeof(Err))) {
      Rdpmc |= Probe.usesRdpmc();
      Events[NumEvents++] = {Attr, Name};
      continue;
    }
    snprintf(Unavail[NumUnavail][0], sizeof(Unavail[0][0]), "%s", Name);
    snprintf(Unavail[NumUnavail][1], sizeof(Unavail[0][1]), "%s", Err);
    ++NumUnavail;
    if (!Known) {
      AnyUnknown = true;
      fprintf(stderr, "decan: error: DECAN_EVENTS: %s (event ignored)\n", Err);
      addWarning("DECAN_EVENTS: %s (event ignored)", Err);
    } else if (!FirstErr[0]) {
      snprintf(FirstErr, sizeof(FirstErr), "%s", Err);
    }
  }
  CountersOk = NumUnavail == 0;
  if (FirstErr[0]) {
    fprintf(stderr, "decan: warning: counters unavailable: %s; %s\n", FirstErr,
            NumEvents ? "measuring the events that opened, and rdtsc"
                      : "measuring with rdtsc only");
    addWarning("counters unavailable: %s", FirstErr);
  }
  snprintf(CountersMsg, sizeof(CountersMsg), "%s%s%s",
           CountersOk ? "all requested events counted"
                      : (FirstErr[0] ? FirstErr : "unknown event name(s)"),
           AnyUnknown && FirstErr[0] ? "; unknown event name(s) too" : "",
           CountersOk ? (Rdpmc ? " (rdpmc)" : " (read(2))") : "");
}

//===-- report ------------------------------------------------------------===//

size_t appendStr(char *Dst, size_t At, size_t Cap, const char *S) {
  while (*S && At + 1 < Cap)
    Dst[At++] = *S++;
  Dst[At] = 0;
  return At;
}

/// Builds the report paths without malloc or stdio (signal handlers too).
void buildPaths() {
  size_t N = appendStr(PathBuf, 0, sizeof(PathBuf), Cfg.OutputDir);
  N = appendStr(PathBuf, N, sizeof(PathBuf), "/decan.");
  char Num[24];
  JsonOut::formatU64((uint64_t)getpid(), Num);
  if (Rank[0]) {
    N = appendStr(PathBuf, N, sizeof(PathBuf), "rank");
    N = appendStr(PathBuf, N, sizeof(PathBuf), Rank);
  } else {
    N = appendStr(PathBuf, N, sizeof(PathBuf), Num);
  }
  appendStr(PathBuf, N, sizeof(PathBuf), ".json");
  size_t M = appendStr(TmpBuf, 0, sizeof(TmpBuf), PathBuf);
  M = appendStr(TmpBuf, M, sizeof(TmpBuf), ".tmp.");
  appendStr(TmpBuf, M, sizeof(TmpBuf), Num);
}

void emitVariant(JsonOut &J, const VariantData &VD) {
  J.beginObject();
  J.key("calls");
  J.u64(VD.Calls.load(std::memory_order_acquire));
  J.key("excluded");
  J.u64(VD.Excluded.load(std::memory_order_acquire));
  J.key("fields");
  J.beginArray();
  for (const char *F : kFieldNames)
    J.str(F);
  for (unsigned E = 0; E < NumEvents; ++E)
    J.str(Events[E].Name);
  J.endArray();
  J.key("records");
  J.beginArray();
  uint64_t N = VD.Raw.size();
  for (uint64_t I = 0; I < N; ++I) {
    const uint64_t *R = VD.Raw.at(I);
    J.beginArray();
    for (unsigned F = 0; F < kFieldEvents + NumEvents; ++F)
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
/// loop (abi.h): the stub left them in the descriptor only. Read only while
/// the descriptor's page is mapped (its module may be unloaded by now).
uint64_t tailCalls(const LoopState &L, const ThreadLoop *TL) {
  if (!L.Strided.load(std::memory_order_relaxed) ||
      L.Threads.load(std::memory_order_relaxed) != 1 || !L.Desc)
    return 0;
  long Page = sysconf(_SC_PAGESIZE);
  uintptr_t At = reinterpret_cast<uintptr_t>(&L.Desc->countdown);
  unsigned char InCore;
  if (mincore(reinterpret_cast<void *>(At & ~(uintptr_t)(Page - 1)),
              (size_t)Page, &InCore) != 0)
    return 0;
  int64_t Left = L.Desc->countdown;
  int64_t Stride = (int64_t)TL->Stride;
  return (uint64_t)(Stride - std::clamp<int64_t>(Left, 0, Stride));
}

void emitLoop(JsonOut &J, const LoopState &L) {
  J.beginObject();
  J.key("id");
  J.str(L.Id);
  J.key("function");
  J.str(L.Function);
  J.key("file");
  J.str(L.File);
  J.key("line");
  J.u64(L.Line);
  J.key("variant_mask");
  J.u64(L.VariantMask);
  J.key("selected");
  J.boolean(L.Selected);
  J.key("region");
  J.boolean(L.IsRegion);
  J.key("store_policy");
  J.beginObject();
  for (int V = 0; V < DECAN_NUM_VARIANTS; ++V)
    if (L.StorePolicy[V] != kNoStorePolicy) {
      J.key(kVariantNames[V]);
      J.str(decan_store_policy_name(L.StorePolicy[V]));
    }
  J.endObject();
  J.key("eligible");
  J.beginArray();
  for (unsigned I = 0; I < L.Plan.N; ++I)
    J.str(kVariantNames[L.Plan.Order[I]]);
  J.endArray();
  J.key("unavailable");
  J.beginObject();
  for (int V = 0; V < DECAN_NUM_VARIANTS; ++V)
    if (L.Unavailable[V]) {
      J.key(kVariantNames[V]);
      J.str(L.Unavailable[V]);
    }
  J.endObject();
  J.key("calls_deleted");
  J.beginArray();
  for (int V = 0; V < DECAN_NUM_VARIANTS; ++V)
    if (L.CallsDeletedMask & (1u << V))
      J.str(kVariantNames[V]);
  J.endArray();
  J.key("bound");
  J.beginObject();
  for (int V = 0; V < DECAN_NUM_VARIANTS; ++V)
    if (L.BoundMask & (1u << V)) {
      J.key(kVariantNames[V]);
      J.str("drops a dependence through memory");
    }
  J.endObject();
  J.key("threads");
  J.beginArray();
  uint32_t NT = std::min<uint32_t>(NumThreads.load(std::memory_order_acquire),
                                   kMaxThreads);
  for (uint32_t TI = 0; TI < NT; ++TI) {
    ThreadState *T = Threads[TI].load(std::memory_order_acquire);
    if (!T || T->Gen != Generation)
      continue;
    ThreadLoop *TL = peekThreadLoop(T, L.Index);
    if (!TL)
      continue;
    if (!TL->Rot.Calls)
      continue;
    J.beginObject();
    J.key("thread");
    J.u64(T->Index);
    J.key("tid");
    J.i64(T->Tid);
    // The tail of a strided loop counts at the mean of its timed calls.
    const LoopTotals &Tot = TL->Tot;
    uint64_t Tail = Tot.Calls ? tailCalls(L, TL) : 0;
    auto WithTail = [&](uint64_t Sum) {
      return Tail ? Sum + (uint64_t)((unsigned __int128)Sum * Tail / Tot.Calls)
                  : Sum;
    };
    J.key("calls_seen");
    J.u64(TL->Rot.Calls + Tail);
    J.key("slots");
    J.u64(TL->Rot.Slots);
    J.key("totals");
    J.beginObject();
    J.key("calls");
    J.u64(Tot.Calls + Tail);
    J.key("iterations");
    J.u64(WithTail(Tot.Iterations));
    J.key("trips_known");
    J.u64(WithTail(Tot.TripsKnown));
    J.key("cycles");
    J.u64(WithTail(Tot.Cycles));
    J.key("tail_calls");
    J.u64(Tail);
    J.key("timed_calls");
    J.u64(Tot.TimedCalls);
    J.key("timed_cycles");
    J.u64(Tot.TimedCycles);
    J.key("max_stride");
    J.u64(Tot.MaxStride);
    J.key("untimed");
    J.u64(Tot.Untimed);
    J.key("variant_calls");
    J.u64(Tot.VariantCalls);
    J.key("variant_cycles");
    J.u64(Tot.VariantCycles);
    J.key("inside_cycles");
    J.u64(Tot.InsideCycles);
    J.key("bucket_width");
    J.u64(Tot.Width);
    J.key("buckets");
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

void emitReport(JsonOut &J, const char *Status, int Sig, int CrashLoop,
                int CrashVariant) {
  J.beginObject();
  J.key("format");
  J.str("decan-raw-2");
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
                       ? Loops[CrashLoop].load()
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
    if (L && CrashRerunOf >= 0 && CrashRerunOf < DECAN_NUM_VARIANTS)
      J.str(kVariantNames[CrashRerunOf]);
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
  J.key("rank");
  if (Rank[0]) {
    uint64_t R = 0;
    for (const char *C = Rank; *C; ++C)
      R = R * 10 + (uint64_t)(*C - '0');
    J.u64(R);
  } else {
    J.null();
  }
  J.key("argv");
  J.beginArray();
  for (size_t I = 0; I < ArgvLen;) {
    size_t E = I;
    while (E < ArgvLen && Argv[E])
      ++E;
    J.strN(Argv + I, E - I);
    I = E + 1;
  }
  J.endArray();
  J.key("host");
  J.str(Host);
  // The run's own time, for program shares: wall TSC cycles and the CPU
  // time of all threads, both since the runtime started measuring.
  J.key("wall_cycles");
  J.u64(TscStart ? decan_tsc_stop() - TscStart : 0);
  if (uint64_t Cpu = processCpuUs()) {
    J.key("cpu_us");
    J.u64(Cpu > CpuStartUs ? Cpu - CpuStartUs : 0);
  }
  J.key("threads");
  J.u64(std::min<uint32_t>(NumThreads.load(), kMaxThreads));
  J.endObject();

  J.key("machine");
  J.beginObject();
  J.key("cpu");
  J.str(CpuName);
  J.key("tsc_hz");
  J.dbl(TscHz);
  J.key("tsc_source");
  J.str(TscSource);
  J.key("logical_cpus");
  J.i64(LogicalCpus);
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
  J.u64(ProbeMin);
  J.key("median");
  J.u64(ProbeMedian);
  J.key("samples");
  J.u64(kProbeSamples);
  J.endObject();
  J.key("sequence");
  J.str("lfence;rdtsc ... rdtscp;lfence");
  J.key("subtracted");
  J.boolean(false);
  J.key("slot_fixed_cycles");
  J.u64(SlotFixedCycles);
  J.key("countdown_centicycles");
  J.u64(CountdownCentiCycles);
  J.key("slot_budget");
  J.str("1/50 of a loop's time once past the first reps*N slots");
  J.endObject();

  J.key("counters");
  J.beginObject();
  J.key("available");
  J.boolean(CountersOk);
  J.key("events");
  J.beginArray();
  for (unsigned E = 0; E < NumEvents; ++E)
    J.str(Events[E].Name);
  J.endArray();
  J.key("unavailable");
  J.beginArray();
  for (unsigned I = 0; I < NumUnavail; ++I) {
    J.beginObject();
    J.key("name");
    J.str(Unavail[I][0]);
    J.key("error");
    J.str(Unavail[I][1]);
    J.endObject();
  }
  J.endArray();
  J.key("message");
  J.str(CountersMsg);
  J.key("read");
  J.str(Rdpmc ? "rdpmc" : "read");
  J.key("context_switches");
  J.str("getrusage(RUSAGE_THREAD) ru_nvcsw+ru_nivcsw delta");
  J.endObject();

  J.key("warnings");
  J.beginArray();
  unsigned NW = std::min(NumWarnings.load(), kMaxWarnings);
  for (unsigned I = 0; I < NW; ++I)
    J.str(Warnings[I]);
  J.endArray();

  emitObjects(J);

  J.key("loops");
  J.beginArray();
  uint32_t NL =
      std::min<uint32_t>(NumLoops.load(std::memory_order_acquire), kMaxLoops);
  for (uint32_t I = 0; I < NL; ++I)
    if (LoopState *L = Loops[I].load(std::memory_order_acquire))
      emitLoop(J, *L);
  J.endArray();
  J.endObject();
}

/// Async-signal-safe: no malloc, no stdio, no locks that a signal could
/// interrupt (one atomic owner word; a nested writer gives up at once).
bool writeReport(const char *Status, int Sig, int CrashLoop, int CrashVariant) {
  if (!Active)
    return true;
  FpEnvGuard Fp; // numbers are formatted, statistics read
  int Me = gettidNow();
  for (int Spin = 0;; ++Spin) {
    int Expected = 0;
    if (WriterTid.compare_exchange_strong(Expected, Me))
      break;
    if (Expected == Me || Spin > 2000)
      return false; // interrupted our own write, or another never finishes
    struct timespec Ts = {0, 1000000};
    nanosleep(&Ts, nullptr);
  }
  buildPaths();
  bool Ok = false;
  int Fd = open(TmpBuf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (Fd >= 0) {
    JsonOut *J = new (JsonMem) JsonOut(Fd);
    emitReport(*J, Status, Sig, CrashLoop, CrashVariant);
    Ok = J->flush();
    Ok &= close(Fd) == 0;
    if (Ok)
      Ok = rename(TmpBuf, PathBuf) == 0;
    if (!Ok)
      unlink(TmpBuf);
  }
  if (!Ok) {
    static const char Msg[] = "decan: error: cannot write report ";
    ssize_t R = write(2, Msg, sizeof(Msg) - 1);
    R = write(2, PathBuf, strlen(PathBuf));
    R = write(2, "\n", 1);
    (void)R;
  }
  WriterTid.store(0);
  return Ok;
}

//===-- threads and loops -------------------------------------------------===//

__attribute__((noinline)) ThreadState *initThread() {
  if (!Active || TlsRefused == Generation)
    return nullptr;
  uint32_t I = NumThreads.fetch_add(1);
  if (I >= kMaxThreads) {
    TlsRefused = Generation;
    if (I == kMaxThreads)
      addWarning("more than %u threads: later threads are not measured",
                 kMaxThreads);
    return nullptr;
  }
  void *M = calloc(1, sizeof(ThreadState));
  if (!M) {
    TlsRefused = Generation;
    return nullptr;
  }
  ThreadState *T = new (M) ThreadState();
  T->Gen = Generation;
  T->Index = I;
  T->Tid = gettidNow();
  for (unsigned E = 0; E < NumEvents; ++E) {
    char Err[192];
    if (!T->Counters[E].open(Events[E].Attr, Events[E].Name, Err, sizeof(Err)))
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
  Threads[I].store(T, std::memory_order_release);
  TlsThread = T;
  return T;
}

inline ThreadState *currentThread() {
  ThreadState *T = TlsThread;
  if (__builtin_expect(T && T->Gen == Generation, 1))
    return T;
  return initThread();
}

__attribute__((noinline)) ThreadLoop *initThreadLoop(ThreadState *T,
                                                     const LoopState *L) {
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
    if (!TL->V[L->Plan.Order[I]].Raw.init(kFieldEvents + NumEvents,
                                          Cfg.MaxRecords))
      addWarning("out of memory for the records of %s", L->Id);
  P->E[L->Index & (kLoopPage - 1)].store(TL, std::memory_order_release);
  return TL;
}

inline ThreadLoop *threadLoop(ThreadState *T, const LoopState *L) {
  ThreadLoop *TL = peekThreadLoop(T, L->Index, std::memory_order_relaxed);
  if (__builtin_expect(TL != nullptr, 1))
    return TL;
  return initThreadLoop(T, L);
}

/// Caller holds RegMutex.
LoopState *newLoop(decan_loop_desc *D, bool IsRegion) {
  uint32_t I = NumLoops.load(std::memory_order_relaxed);
  if (I >= kMaxLoops) {
    // NumLoops stays at the capacity: every reader indexes Loops[] and the
    // per-thread tables with it, and one past the end reads the globals
    // that follow as LoopState pointers (a crash in the report writer).
    if (DroppedLoops.fetch_add(1) == 0)
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
  L->VariantMask = D->variant_mask;
  L->BoundMask = D->bound_mask;
  L->CallsDeletedMask = D->minfo ? D->minfo->calls_deleted_mask : 0;
  for (int V = 0; V < DECAN_NUM_VARIANTS; ++V) // REF is the real loop
    L->StorePolicy[V] = D->minfo         ? (uint8_t)D->minfo->store_policy[V]
                        : V == DECAN_REF ? (uint8_t)DECAN_STORE_KEPT
                                         : kNoStorePolicy;
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
    if (!(D->variant_mask & (1u << V)))
      Why = IsRegion ? "region" : "not-emitted";
    else if (D->minfo && D->minfo->status[V] != DECAN_VARIANT_OK &&
             D->minfo->status[V] != DECAN_VARIANT_NOT_BUILT)
      Why = decan_variant_status_name(D->minfo->status[V]);
    if (Why) {
      L->Unavailable[V] = Why;
      continue;
    }
    if (Cfg.RunMode == Mode::Replace && L->Plan.N == 1)
      continue; // replace runs the first eligible variant only
    L->Plan.Order[L->Plan.N++] = (uint8_t)V;
  }
  D->runtime_state = L;
  Loops[I].store(L, std::memory_order_release);
  NumLoops.store(I + 1, std::memory_order_release);
  return L;
}

/// Records one sample; returns its raw record (null when it went to the
/// online statistics), whose pair fields the calls after it complete.
inline uint64_t *record(ThreadLoop *TL, int V, uint64_t Cycles, uint64_t Trips,
                        uint64_t Call, uint64_t Flags, bool EvFail,
                        const uint64_t *EvStart, const uint64_t *EvEnd) {
  VariantData &VD = TL->V[V];
  bool Switched = Flags & DECAN_SAMPLE_SWITCHED;
  Flags |= EvFail ? DECAN_SAMPLE_COUNTER_FAILED : 0;
  uint64_t *R = VD.Raw.next();
  if (R) {
    R[kFieldCycles] = Cycles;
    R[kFieldTrips] = Trips;
    R[kFieldCall] = Call;
    bool HasPre = TL->PreCall && TL->PreCall + 1 == Call;
    R[kFieldPreCycles] = HasPre ? TL->PreCycles : 0;
    R[kFieldPreTrips] = HasPre ? TL->PreTrips : 0;
    R[kFieldPostCycles] = 0;
    R[kFieldPostTrips] = 0;
    R[kFieldRerunTrips] = 0;
    Flags |= (HasPre ? (TL->PreSwitched ? DECAN_SAMPLE_PRE_SWITCHED : 0)
                     : DECAN_SAMPLE_NO_PRE) |
             DECAN_SAMPLE_NO_POST |
             (V != DECAN_REF ? DECAN_SAMPLE_NO_RERUN : 0);
    R[kFieldFlags] = Flags;
    for (unsigned E = 0; E < NumEvents; ++E)
      R[kFieldEvents + E] = EvEnd[E] - EvStart[E];
    VD.Raw.publish();
  } else if (!Switched) {
    VD.Online.add(Cycles, Trips);
  }
  if (Switched)
    VD.Excluded.store(VD.Excluded.load(std::memory_order_relaxed) + 1,
                      std::memory_order_relaxed);
  VD.Calls.store(VD.Calls.load(std::memory_order_relaxed) + 1,
                 std::memory_order_release);
  return R;
}

void finishInstanceIfDone() {
  uint32_t NL = std::min<uint32_t>(NumLoops.load(), kMaxLoops);
  for (uint32_t I = 0; I < NL; ++I) {
    LoopState *L = Loops[I].load();
    if (L && L->Selected && !L->IsRegion && L->Plan.N &&
        !L->InstanceDone.load())
      return;
  }
  if (FinalDone.exchange(true))
    return;
  writeReport("complete", 0, -1, -1);
  // Instance mode measured what it was asked to: end the run here, cleanly,
  // so the rest of the program does not cost time.
  exit(0);
}

//===-- process hooks -----------------------------------------------------===//

void onSignal(int Sig, siginfo_t *, void *) {
  int SavedErrno = errno;
  int CrashLoop = -1, CrashVariant = -1;
  ThreadState *T = TlsThread;
  if (T && T->Gen == Generation) {
    if (T->InFlightLoop >= 0) {
      CrashLoop = T->InFlightLoop;
      CrashVariant = T->InFlightVariant;
      CrashRerunOf = T->InFlightRerunOf;
    } else if (T->RegionDepth && T->RegionDepth <= kMaxRegionDepth &&
               T->Regions[T->RegionDepth - 1].Loop < kMaxLoops) {
      CrashLoop = (int)T->Regions[T->RegionDepth - 1].Loop;
      CrashVariant = DECAN_REF;
    }
  }
  if (CrashLoop < 0) // asynchronous signal: name what any thread was in
    for (uint32_t I = 0; I < std::min<uint32_t>(NumThreads.load(), kMaxThreads);
         ++I) {
      ThreadState *O = Threads[I].load();
      if (O && O->Gen == Generation && O->InFlightLoop >= 0) {
        CrashLoop = O->InFlightLoop;
        CrashVariant = O->InFlightVariant;
        CrashRerunOf = O->InFlightRerunOf;
        break;
      }
    }
  bool Interrupt = Sig == SIGINT || Sig == SIGTERM;
  if (!FinalDone.load())
    writeReport(Interrupt ? "interrupted" : "crashed", Sig, CrashLoop,
                CrashVariant);
  // Hand the signal to whoever had it before us (the default action: die
  // with this signal, so the parent sees the real cause).
  sigaction(Sig, &OldActions[Sig], nullptr);
  errno = SavedErrno;
  raise(Sig);
}

void atExit() {
  if (!FinalDone.exchange(true))
    writeReport("complete", 0, -1, -1);
}

void installHooks() {
  if (HooksInstalled)
    return;
  HooksInstalled = true;
  for (int Sig : kSignals) {
    struct sigaction Old;
    if (sigaction(Sig, nullptr, &Old) != 0)
      continue;
    if (Old.sa_handler == SIG_IGN)
      continue; // the program asked not to hear about it
    OldActions[Sig] = Old;
    struct sigaction A;
    memset(&A, 0, sizeof(A));
    A.sa_sigaction = onSignal;
    A.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&A.sa_mask);
    sigaction(Sig, &A, nullptr);
  }
  atexit(atExit);
}

void initialize(GetEnvFn GetEnv) {
  FpEnvGuard Fp; // the TSC calibration computes in doubles before main
  parseConfig(Cfg, GetEnv);
  Active = Cfg.Active;
  if (!Active)
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
  CpuStartUs = processCpuUs();
  TscStart = decan_tsc_start();
  currentThread(); // the initializing (main) thread is thread 0
  loadLibraryMap(Cfg.LibMap);
  scanLoadedObjects();
}

void ensureInit() {
  if (__builtin_expect(InitDone.load(std::memory_order_acquire), 1))
    return;
  pthread_once(&InitOnce, [] {
    initialize([](const char *N) -> const char * { return getenv(N); });
    InitDone.store(true, std::memory_order_release);
  });
}

__attribute__((constructor)) void runtimeConstructor() { ensureInit(); }

LoopState *findRegion(const char *Name) {
  uint32_t N = NumRegions.load(std::memory_order_acquire);
  for (uint32_t I = 0; I < N; ++I)
    if (!strcmp(Regions[I]->Function, Name))
      return Regions[I];
  pthread_mutex_lock(&RegMutex);
  LoopState *L = nullptr;
  N = NumRegions.load();
  for (uint32_t I = 0; I < N && !L; ++I)
    if (!strcmp(Regions[I]->Function, Name))
      L = Regions[I];
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
        Regions[N] = L;
        NumRegions.store(N + 1, std::memory_order_release);
      }
    }
  }
  pthread_mutex_unlock(&RegMutex);
  return L;
}

} // namespace

//===-- internal interface (Runtime.h) ------------------------------------===//

void reinitializeForTesting(GetEnvFn GetEnv) {
  ensureInit();
  pthread_mutex_lock(&RegMutex);
  uint32_t NL = std::min<uint32_t>(NumLoops.load(), kMaxLoops);
  // Descriptors registered before belong to the tests and may be gone:
  // they are not touched, only forgotten.
  for (uint32_t I = 0; I < NL; ++I)
    Loops[I].store(nullptr);
  NumLoops.store(0);
  DroppedLoops.store(0);
  NumRegions.store(0);
  for (uint32_t I = 0; I < kMaxThreads; ++I)
    Threads[I].store(nullptr);
  NumThreads.store(0);
  NumWarnings.store(0);
  FinalDone.store(false);
  ++Generation; // every thread's TLS state is now stale
  pthread_mutex_unlock(&RegMutex);
  initialize(GetEnv);
}

bool writeReportNow(const char *Status) {
  ensureInit();
  return writeReport(Status, 0, -1, -1);
}

const char *reportPath() {
  ensureInit();
  buildPaths();
  return PathBuf;
}

unsigned maxLoops() { return kMaxLoops; }
double tscHz() { return TscHz; }
uint64_t probeMinCycles() { return ProbeMin; }
uint64_t probeMedianCycles() { return ProbeMedian; }
bool countersAvailable() { return CountersOk; }
const char *countersMessage() { return CountersMsg; }
unsigned numWorkingEvents() { return NumEvents; }

bool visitRecords(const char *Id, RecordVisitor Fn, void *Ctx) {
  uint32_t NL = std::min<uint32_t>(NumLoops.load(), kMaxLoops);
  for (uint32_t I = 0; I < NL; ++I) {
    LoopState *L = Loops[I].load();
    if (!L || strcmp(L->Id, Id) != 0)
      continue;
    uint32_t NT = std::min<uint32_t>(NumThreads.load(), kMaxThreads);
    for (uint32_t TI = 0; TI < NT; ++TI) {
      ThreadState *T = Threads[TI].load();
      if (!T || T->Gen != Generation)
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

void registerLoops(decan_loop_desc *Descs, uint32_t Count);

bool relocateRewritten(decan_rewritten_header *H) {
  if (memcmp(H->magic, "DECANRW1", 8) != 0 || H->relocated)
    return false;
  if (H->abi_version != DECAN_ABI_VERSION) {
    addWarning("rewritten binary with ABI version %u (runtime has %u): not "
               "measured",
               H->abi_version, DECAN_ABI_VERSION);
    return false;
  }
  uintptr_t Base = reinterpret_cast<uintptr_t>(H);
  auto *Descs = reinterpret_cast<decan_loop_desc *>(Base + H->descs_offset);
  auto Fix = [Base](auto *&Field) {
    uintptr_t Off = reinterpret_cast<uintptr_t>(Field);
    using T = std::remove_reference_t<decltype(Field)>;
    Field = Off ? reinterpret_cast<T>(Base + Off) : nullptr;
  };
  for (uint32_t I = 0; I < H->count; ++I) {
    decan_loop_desc &D = Descs[I];
    Fix(D.id);
    Fix(D.function);
    Fix(D.file);
    Fix(D.scratch);
    Fix(D.minfo);
    if (!D.file)
      D.file = "";
  }
  H->begin_call = __decan_begin_call;
  H->end_call = __decan_end_call;
  H->relocated = 1;
  registerLoops(Descs, H->count);
  return true;
}

unsigned scanSegments(uintptr_t Base, const ElfW(Phdr) * Phdrs, unsigned N) {
  unsigned Count = 0;
  for (unsigned I = 0; I < N; ++I) {
    const ElfW(Phdr) &P = Phdrs[I];
    if (P.p_type != PT_LOAD || !(P.p_flags & PF_W) || !(P.p_flags & PF_R) ||
        P.p_memsz < sizeof(decan_rewritten_header))
      continue;
    auto *H = reinterpret_cast<decan_rewritten_header *>(Base + P.p_vaddr);
    if (memcmp(H->magic, "DECANRW1", 8) == 0 && relocateRewritten(H))
      ++Count;
  }
  return Count;
}

} // namespace decan::rt

using namespace decan::rt;

//===-- ABI entry points (decan/abi.h) ------------------------------------===//

namespace decan::rt {
/// Registration proper. Does not initialize the runtime: it also runs from
/// initialize() itself (rewritten binaries found by dl_iterate_phdr), inside
/// the pthread_once that ensureInit() would wait on forever.
void registerLoops(decan_loop_desc *Descs, uint32_t Count) {
  if (!Active || !Descs)
    return; // inert: descriptors stay inactive
  pthread_mutex_lock(&RegMutex);
  for (uint32_t I = 0; I < Count; ++I) {
    decan_loop_desc *D = &Descs[I];
    if (D->abi_version != DECAN_ABI_VERSION) {
      addWarning("loop %s: ABI version %u, runtime has %u: not measured",
                 D->id ? D->id : "?", D->abi_version, DECAN_ABI_VERSION);
      continue;
    }
    if (D->runtime_state)
      continue; // registered twice (same module seen twice)
    LoopState *L = newLoop(D, /*IsRegion=*/false);
    if (L && L->Selected && L->Plan.N)
      D->active = 1;
  }
  pthread_mutex_unlock(&RegMutex);
}
} // namespace decan::rt

DECAN_API void __decan_register_loops(decan_loop_desc *Descs, uint32_t Count) {
  ensureInit();
  registerLoops(Descs, Count);
}

/// Unserialized TSC read: cheap, for decan's own cost, not for loops.
inline uint64_t rawTsc() {
  uint32_t Lo, Hi;
  __asm__ __volatile__("rdtsc" : "=a"(Lo), "=d"(Hi));
  return ((uint64_t)Hi << 32) | Lo;
}

DECAN_API int __decan_begin_call(decan_loop_desc *Desc) {
  uint64_t Entry = rawTsc();
  auto *L = static_cast<LoopState *>(Desc->runtime_state);
  if (__builtin_expect(!L, 0))
    return -1;
  ThreadState *T = currentThread();
  if (__builtin_expect(!T || T->InFlightLoop >= 0, 0)) {
    // Nested in another measured call: run the original only. A loop
    // that calls this one yields to it (issue 13): it is not timed again.
    LoopState *Out = T ? Loops[T->InFlightLoop].load() : nullptr;
    if (Out && Out != L && Out->Desc && !Out->Yielded.exchange(true)) {
      Out->Desc->active = 0;
      addWarning("%s calls measured loops (%s): measured until then only",
                 Out->Id, L->Id);
    }
    return -1;
  }
  ThreadLoop *TL = threadLoop(T, L);
  if (__builtin_expect(!TL, 0))
    return -1;
  // At a stride k (Desc->active == 2), this call stands for the k-1 calls
  // before it that only counted down.
  bool OneThread = L->Threads.load(std::memory_order_relaxed) == 1;
  uint64_t Weight = OneThread && Desc->active == 2 ? TL->Stride : 1;
  TL->Weight = Weight;
  Decision D = decide(
      L->Plan, TL->Rot, Sched, L->Index + 1, [TL] { return slotGapCap(TL); },
      Weight - 1);
  if (D.Variant < 0) {
    TL->Tot.Untimed += Weight;
    return -1;
  }
  if (Sched.RunMode == Mode::Rotate && OneThread) {
    uint64_t Timed = TL->Tot.TimedCalls;
    if (Timed >= kStrideMinCalls &&
        (Timed == kStrideMinCalls || !(Timed & kStrideUpdateMask)))
      TL->StrideCap = strideCap(TL);
    uint64_t Next = strideAfter(TL->Rot, D.What, TL->Rot.Calls, TL->StrideCap);
    if (Next > 1 || TL->Stride > 1) {
      Desc->countdown = (int32_t)Next;
      if (Desc->active == 1) {
        L->Strided.store(true, std::memory_order_relaxed);
        Desc->active = 2;
      }
    }
    TL->Stride = Next;
  }
  T->InFlightLoop = (int32_t)L->Index;
  T->InFlightVariant = D.Variant;
  T->InFlightRerunOf = -1;
  T->InFlightRole = D.What;
  T->EntryTsc = Entry;
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
    // The context-switch window encloses the counter window.
    T->CtxStart = contextSwitches();
    T->EvFail =
        D.What == Role::Sample && NumEvents && !readCounters(T, T->EvStart);
  }
  return D.Variant;
}

/// The original loop ran (timed, REF) after variant \p Of on the same input:
/// the call's real work for the totals, and the trip count the variant's
/// must equal.
static void endRerun(ThreadState *T, ThreadLoop *TL, uint64_t Cycles,
                     uint64_t Trips) {
  TL->Tot.add(TL->Rot.Calls, Cycles, Trips, TL->Weight);
  if (TL->Pending && TL->PendingCall == TL->Rot.Calls) {
    TL->Pending[kFieldRerunTrips] = Trips;
    TL->Pending[kFieldFlags] &= ~(uint64_t)DECAN_SAMPLE_NO_RERUN;
  }
  T->InFlightLoop = -1;
  T->InFlightVariant = -1;
  T->InFlightRerunOf = -1;
  TL->Tot.InsideCycles += rawTsc() - T->EntryTsc;
}

DECAN_API int __decan_end_call(decan_loop_desc *Desc, int Variant,
                               uint64_t Cycles, uint64_t Trips) {
  auto *L = static_cast<LoopState *>(Desc->runtime_state);
  bool Rerun = Variant >= 0 && (Variant & DECAN_RERUN);
  int V = Variant >= 0 ? (Variant & ~DECAN_RERUN) : Variant;
  bool RunOriginal = !Rerun && V != DECAN_REF && Sched.RunMode != Mode::Replace;
  ThreadState *T = TlsThread;
  // A rerun follows the variant that begin_call chose; anything else (a
  // stale or foreign call) changes nothing.
  if (__builtin_expect(!L || !T || T->Gen != Generation ||
                           T->InFlightLoop != (int32_t)L->Index ||
                           T->InFlightVariant != (Rerun ? DECAN_REF : V) ||
                           T->InFlightRerunOf != (Rerun ? V : -1),
                       0))
    return RunOriginal;
  ThreadLoop *TL = peekThreadLoop(T, L->Index, std::memory_order_relaxed);
  if (Rerun) {
    endRerun(T, TL, Cycles, Trips);
    return 0;
  }
  uint64_t Call = TL->Rot.Calls;
  Role What = T->InFlightRole;
  bool Switched = false;
  if (What != Role::Account) {
    uint64_t EvEnd[kMaxEvents];
    bool EvFail = What == Role::Sample &&
                  (T->EvFail || (NumEvents && !readCounters(T, EvEnd)));
    Switched = contextSwitches() != T->CtxStart;
    if (What == Role::Sample) {
      TL->Pending = record(TL, V, Cycles, Trips, Call,
                           Switched ? DECAN_SAMPLE_SWITCHED : 0, EvFail,
                           T->EvStart, EvEnd);
      TL->PendingCall = Call;
    }
  }
  if (What == Role::Post && TL->Pending && TL->PendingCall + 1 == Call) {
    uint64_t *R = TL->Pending;
    R[kFieldPostCycles] = Cycles;
    R[kFieldPostTrips] = Trips;
    R[kFieldFlags] = (R[kFieldFlags] & ~(uint64_t)DECAN_SAMPLE_NO_POST) |
                     (Switched ? DECAN_SAMPLE_POST_SWITCHED : 0);
  }
  // A post call is also the pre call of a slot that follows at once.
  if (What == Role::Pre || What == Role::Post) {
    TL->PreCall = Call;
    TL->PreCycles = Cycles;
    TL->PreTrips = Trips;
    TL->PreSwitched = Switched;
  }
  if (V == DECAN_REF || !RunOriginal) {
    TL->Tot.add(Call, Cycles, Trips, TL->Weight); // the program's loop
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
    TL->Tot.InsideCycles += rawTsc() - T->EntryTsc;
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
  return Active;
}

DECAN_API int decan_flush(void) {
  ensureInit();
  if (!Active)
    return 0;
  return writeReport("flushed", 0, -1, -1) ? 0 : -1;
}

DECAN_API void decan_region_begin(const char *Name) {
  ensureInit();
  if (!Active || !Name)
    return;
  ThreadState *T = currentThread();
  if (!T)
    return;
  if (T->RegionDepth >= kMaxRegionDepth) {
    ++T->RegionOverflow;
    return;
  }
  LoopState *L = findRegion(Name);
  RegionFrame &F = T->Regions[T->RegionDepth];
  F.Loop = L ? L->Index : ~0u;
  F.Measured = false;
  ++T->RegionDepth;
  if (!L || !L->Selected)
    return;
  ThreadLoop *TL = threadLoop(T, L);
  if (!TL)
    return;
  uint64_t N = ++TL->Rot.Calls;
  F.Call = N;
  F.Measured =
      Sched.RunMode == Mode::Instance ? N == Sched.Instance : N > Sched.Warmup;
  if (!F.Measured)
    return;
  F.Ctx = contextSwitches();
  F.EvFail = NumEvents && !readCounters(T, F.Ev);
  F.T0 = decan_tsc_start();
}

DECAN_API void decan_region_end(void) {
  uint64_t T1 = decan_tsc_stop();
  if (!Active)
    return;
  ThreadState *T = TlsThread;
  if (!T || T->Gen != Generation)
    return;
  if (T->RegionOverflow) {
    --T->RegionOverflow;
    return;
  }
  if (!T->RegionDepth)
    return;
  RegionFrame &F = T->Regions[--T->RegionDepth];
  if (!F.Measured)
    return;
  uint64_t EvEnd[kMaxEvents];
  bool EvFail = F.EvFail || (NumEvents && !readCounters(T, EvEnd));
  uint64_t Ctx = contextSwitches();
  LoopState *L = Loops[F.Loop].load(std::memory_order_relaxed);
  ThreadLoop *TL = peekThreadLoop(T, L->Index, std::memory_order_relaxed);
  record(TL, DECAN_REF, T1 - F.T0, 0, F.Call,
         Ctx != F.Ctx ? DECAN_SAMPLE_SWITCHED : 0, EvFail, F.Ev, EvEnd);
  TL->Tot.add(F.Call, T1 - F.T0, 0);
}
