//===- State.h - The runtime's state ----------------------------*- C++ -*-===//
//
// Part of decan. Free of LLVM; no exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Everything the runtime keeps, in a few constant-initialized structs
/// (module constructors of instrumented code may call in before this
/// library's own constructors ran): the loop and thread tables, the
/// counters that opened, the machine facts measured at start-up, and the
/// process-wide flags. The hot path touches only per-thread state
/// (ThreadState, through one initial-exec TLS pointer) and LoopState, which
/// is read-only after registration but for its thread count.
//===----------------------------------------------------------------------===//

#ifndef DECAN_RUNTIME_STATE_H
#define DECAN_RUNTIME_STATE_H

#include "Config.h"
#include "Counters.h"
#include "Records.h"
#include "Schedule.h"
#include "decan/abi.h"

#include <atomic>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <time.h>

namespace decan::rt {

constexpr unsigned kMaxLoops = 65536;
/// Per-thread loop records live in lazily allocated pages of this many
/// entries, so a thread costs memory only for the loop ranges it calls.
constexpr unsigned kLoopPageBits = 10, kLoopPage = 1u << kLoopPageBits;
constexpr unsigned kMaxThreads = 1024;
constexpr unsigned kMaxRegionDepth = 16;
constexpr unsigned kMaxRegions = 256;
constexpr unsigned kMaxWarnings = 32;
constexpr uint8_t kNoStorePolicy = 0xFF;
/// Unmasks nothing, flushes denormals: exception masks | FTZ | DAZ.
constexpr uint32_t kMxcsrMasks = 0x1F80, kMxcsrFtz = 0x8000, kMxcsrDaz = 0x0040,
                   kMxcsrFlags = 0x003F;

struct LoopState {
  decan_loop_desc *Desc = nullptr;
  // Copies: a module that registered loops may be unloaded before the
  // report is written, so the writer never reads the descriptor.
  const char *Id = "", *Function = "", *File = "";
  const char *Source = ""; ///< decan_loop_desc::source, "" unknown
  /// The library that holds the loop (objectNameOf), "" the executable.
  const char *Object = "";
  uint32_t Line = 0, VariantMask = 0, BoundMask = 0;
  uint32_t IterationStep = 0;      ///< decan_loop_desc::iteration_step
  uint32_t CallsDeletedMask = 0;   ///< minfo->calls_deleted_mask
  uint32_t ChasedLoads = 0;        ///< minfo->n_chased_load
  uint32_t DL1MemoryCallBytes = 0; ///< minfo->dl1_memory_call_bytes
  /// GROUPING: minfo's memory groups (copied, as the strings above).
  uint32_t NumGroups = 0;
  uint32_t GroupAccesses[DECAN_MAX_GROUPS] = {};
  char GroupName[DECAN_MAX_GROUPS][32] = {};
  uint32_t Index = 0;
  /// decan_store_policy per variant as the producer recorded it (minfo);
  /// kNoStorePolicy where it recorded none.
  uint8_t StorePolicy[DECAN_NUM_VARIANTS] = {};
  LoopPlan Plan;
  bool Selected = false;
  bool IsRegion = false;
  /// Why a requested variant is not measured; null when it is eligible.
  const char *Unavailable[DECAN_NUM_VARIANTS] = {};
  /// The same in words (decan_variant_why_text), "" when not known.
  const char *UnavailableWhy[DECAN_NUM_VARIANTS] = {};
  std::atomic<bool> InstanceDone{false};
  /// A call of it ran a measured loop (begin_call): it is no longer timed
  /// and the report leaves out what it measured (its time holds theirs).
  std::atomic<bool> Yielded{false};
  /// A measured call of it was left without end_call (an exception or a
  /// longjmp unwound it): said once.
  std::atomic<bool> Abandoned{false};
  /// Threads that called the loop. The stub's countdown is one per loop,
  /// so only a loop of one thread gets an accounting stride.
  mutable std::atomic<uint32_t> Threads{0};
  /// The runtime set a stride once: the stub counts calls down.
  std::atomic<bool> Strided{false};
  /// Late variants (Late.h): a base copy's loop without copies yet, whose
  /// calls are only counted (about: every kLateStride-th reaches the
  /// runtime); the calls counted before its late pack was installed, and
  /// when (TSC; 0: never); replaced by the loop's state with copies (its
  /// successor in the table, same id): the report leaves this one out.
  bool LateWaiting = false;
  /// Named in a request already (Late.cpp; under its mutex): a loop the
  /// pack left out is not asked for again in this run.
  bool LateRequested = false;
  std::atomic<uint64_t> LateCalls{0};
  uint64_t CallsBeforeLate = 0, LateSinceTsc = 0;
  std::atomic<bool> Superseded{false};
  /// Iteration caps (abi.h, capped_mask): the copies that carry one, the
  /// largest REF trip count seen (their cap is kCapFactor times it), a
  /// doubling of the cap for loops whose trips the runtime cannot count, the
  /// calls each variant was capped in, and the variants taken out of the
  /// rotation because they ran far past REF's work on the same input.
  uint32_t CappedMask = 0;
  std::atomic<uint64_t> MaxRefTrips{0};
  std::atomic<uint32_t> CapShift{0};
  std::atomic<uint64_t> CappedCalls[DECAN_NUM_VARIANTS] = {};
  std::atomic<uint32_t> DisabledMask{0};
  /// Variants whose copy faulted (Guard.h): out of the rotation (in
  /// DisabledMask too), the first fault of each in words; FaultClaimed
  /// picks the call that writes them.
  std::atomic<uint32_t> FaultedMask{0}, FaultClaimed{0};
  char FaultText[DECAN_NUM_VARIANTS][64] = {};
  /// A thread runs one of its copies (rotate mode): the copies address one
  /// scratch area (DL1's, LS's and NO_DIV's cells), and two threads in it at
  /// once would bounce its lines between their cores (Sat(DL1) of 4-6 on
  /// an OpenMP loop, issue 26). A thread that finds it taken times REF in
  /// that slot instead (a REF sample), counted in ScratchBusyCalls.
  std::atomic<bool> ScratchBusy{false};
  std::atomic<uint64_t> ScratchBusyCalls{0};
};

/// A capped copy may run kCapFactor times the most iterations REF ran in
/// one call, and at least kCapFloor: a copy that never ends costs a few
/// milliseconds of the run before it is taken out.
constexpr uint64_t kCapFactor = 16, kCapFloor = 1u << 20;

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
  /// A loop that several threads run: this thread's countdown to its next
  /// decided call (the descriptor's, abi.h, is one per loop); 0 until set.
  uint64_t Countdown = 0;
  /// Context switches of the thread after the last timed call, when the
  /// next one stands for a stride.
  uint64_t StrideCtx = 0;
  /// The last weighted call was an outlier (Sampling.h, standing).
  bool PrevOutlier = false;
  /// Open activations of this region on the thread (plugin-placed regions:
  /// only the outermost is timed).
  uint32_t RegionActive = 0;
};

struct ThreadLoopPage {
  std::atomic<ThreadLoop *> E[kLoopPage];
};

struct RegionFrame {
  uint32_t Loop;
  bool Placed; ///< by the plugin (__decan_region_enter), not by name
  bool Measured;
  bool EvFail;
  uint64_t Call, Ctx, T0;
  uint64_t Decan;  ///< ThreadState::DecanCycles at entry
  uint64_t Enter;  ///< TSC at the runtime's entry (placed regions)
  uint64_t Weight; ///< activations this timed one stands for (stride)
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
  /// begin_call's frame address for the call in flight: a later
  /// begin_call at or above it means that call's frame was unwound.
  uintptr_t InFlightFrame = 0;
  Role InFlightRole = Role::Account;
  bool EvFail = false;
  /// The variant in flight ran out of iterations (DECAN_TRIPS_CAPPED): its
  /// cap and cycles, judged against the original run that follows.
  bool InFlightCapped = false;
  uint64_t CappedAt = 0, CappedCycles = 0;
  uint32_t SavedMxcsr = 0;
  int SavedErrno = 0; ///< a variant's libm calls may set errno: restored
  uint64_t CtxStart = 0;
  uint64_t FaultStart = 0; ///< page faults at the timed call's start
  /// A slot's call (not an accounting one): the thread's CPU time and
  /// voluntary context switches at its start, so a REF call's blocked time
  /// (futex, I/O) is told from its CPU time (LoopTotals::Probed*).
  uint64_t CpuStartNs = 0, VoluntaryStart = 0;
  /// The loop whose scratch area this thread holds (LoopState::ScratchBusy)
  /// while one of its copies runs; null when none.
  LoopState *ScratchHeld = nullptr;
  /// TSC at begin_call's entry: a timed call's whole cost in the runtime.
  uint64_t EntryTsc = 0;
  /// What decan added on this thread so far (runtime stays less the loops'
  /// own time, on the thread's CPU: decanCost() in Runtime.cpp): taken out
  /// of the regions that enclose it.
  uint64_t DecanCycles = 0;
  /// The slot call in flight was switched out while its copy ran (blocked,
  /// preempted): its wall time holds a wait that is no work of decan's, so
  /// its cost is the copy's CPU time (SlotCopyCycles, TSC cycles) and the
  /// slot's fixed cost.
  bool SlotSwitched = false;
  uint64_t SlotCopyCycles = 0;
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

/// The loops (and regions) and threads the runtime knows.
struct Registry {
  /// Held while loops or regions are registered.
  pthread_mutex_t Mutex = PTHREAD_MUTEX_INITIALIZER;
  /// Bumped by reinitializeForTesting(): older ThreadStates are stale.
  uint64_t Generation = 1;
  std::atomic<LoopState *> Loops[kMaxLoops] = {};
  /// Never above kMaxLoops: readers index Loops[] and the per-thread pages
  /// with it.
  std::atomic<uint32_t> NumLoops{0};
  /// Loops refused because the table was full (their descriptors stay
  /// inactive).
  std::atomic<uint32_t> DroppedLoops{0};
  std::atomic<ThreadState *> Threads[kMaxThreads] = {};
  std::atomic<uint32_t> NumThreads{0};
  LoopState *Regions[kMaxRegions] = {};
  std::atomic<uint32_t> NumRegions{0};
};

/// The hardware counters requested (DECAN_EVENTS) and which of them opened.
struct CounterSetup {
  EventInfo Events[kMaxEvents] = {};
  unsigned NumEvents = 0;
  char Unavail[kMaxEvents][2][192] = {}; ///< name, reason
  unsigned NumUnavail = 0;
  bool CountersOk = false;
  bool Rdpmc = false;
  char CountersMsg[512] = {};
};

/// What the runtime learns at start-up (MachineFacts.h).
struct MachineFacts {
  char CpuName[128] = "unknown";
  char Host[256] = "";
  char Argv[8192] = {};
  size_t ArgvLen = 0;
  char Rank[24] = ""; ///< MPI rank from the launcher's variables, or ""
  /// The process that read Rank: its forks have the rank's variables too.
  int RankPid = 0;
  double TscHz = 0;
  const char *TscSource = "calibrated";
  long LogicalCpus = 0;
  uint64_t ProbeMin = 0, ProbeMedian = 0;
  /// What the probes add to a call that runs longer than they do, in 1/100
  /// cycle (measureProbeCallCost); at most ProbeMedian.
  uint64_t ProbeCallCentiCycles = 0;
  /// TSC when measuring began (after the runtime's own start-up work).
  uint64_t TscStart = 0;
  /// Process CPU time (us) at TscStart: the runtime's start-up is not the
  /// run.
  uint64_t CpuStartUs = 0;
  /// The main thread's runqueue wait (us) at TscStart: wall time the
  /// program spent waiting for a CPU that other processes held is not the
  /// program's time.
  uint64_t RunqueueWaitStartUs = 0;
  /// CLOCK_MONOTONIC (ns) when RunqueueWaitStartUs was read: the run's
  /// length over the very interval of its runqueue wait, in the same clock
  /// (the TSC rate is calibrated, and a busy machine can skew it).
  uint64_t RunqueueWaitStartNs = 0;
  /// Fixed cost of a sampling slot beyond its calls: six context-switch
  /// reads.
  uint64_t SlotFixedCycles = 0;
  /// Cost of the stub's countdown on a call that does not reach the
  /// runtime, in 1/100 cycle (measureCountdownCost).
  uint64_t CountdownCentiCycles = 0;
  /// A rewritten dispatcher's cost outside the runtime's timing, in 1/100
  /// cycle (measureDispatchCost): per full entry (a call the runtime
  /// decides), and per quick one (a thread's stride counting down).
  uint64_t DispatchCentiCycles = 0, DispatchQuickCentiCycles = 0;
};

/// The process-wide flags: initialization, warnings, the report writer's
/// and the signal hooks' state.
struct ProcessState {
  pthread_once_t InitOnce = PTHREAD_ONCE_INIT;
  std::atomic<bool> InitDone{false};
  bool Active = false; ///< DECAN_LOOPS was set
  char Warnings[kMaxWarnings][256] = {};
  std::atomic<unsigned> NumWarnings{0};
  /// The thread writing the report (0: none).
  std::atomic<int> WriterTid{0};
  /// With a crash in the original run after a variant: that variant, else -1.
  int CrashRerunOf = -1;
  /// The final report (exit, instance done, fatal signal) is written.
  std::atomic<bool> FinalDone{false};
  bool HooksInstalled = false;
  /// This process is a fork of a measured one (no exec since): its report
  /// holds what it measured after the fork, under its own pid.
  bool Forked = false;
  /// The pid that forked this process, read before each fork.
  int ForkedFrom = 0;
  /// The parent when measuring began (at start-up, or the fork): a parent
  /// that exits first does not change it.
  int ParentPid = 0;
  /// Per signal decan handles (Signals.cpp): the action the program set,
  /// or found at start-up. decan's handler stays installed and hands the
  /// signal on to it; the program sees it as its own (SignalHook.cpp).
  /// Written only through Signals.cpp's setProgramAction and read through
  /// programAction: several threads may call sigaction at once while a
  /// handler on a third reads the action (a sequence count per signal).
  struct sigaction ProgramActions[65] = {};
  std::atomic<uint32_t> ProgramActionSeq[65] = {};
  /// Serialises writers of ProgramActions and the kernel's action with it.
  std::atomic_flag ProgramActionLock = ATOMIC_FLAG_INIT;
  /// The report was written once before a program's handler ran.
  bool ReportedBeforeHandler[65] = {};
  char PathBuf[2200] = {}, TmpBuf[2300] = {};
};

extern constinit Config Cfg;
extern constinit ScheduleParams Sched;
extern constinit Registry Reg;
extern constinit CounterSetup Ctr;
extern constinit MachineFacts Facts;
extern constinit ProcessState Proc;

extern constinit thread_local ThreadState *TlsThread
    __attribute__((tls_model("initial-exec")));
/// The generation in which this thread was refused a ThreadState.
extern thread_local uint64_t TlsRefused
    __attribute__((tls_model("initial-exec")));

int32_t gettidNow();
/// Adds a line to the report's warnings (at most kMaxWarnings).
__attribute__((format(printf, 1, 2))) void addWarning(const char *Fmt, ...);

inline uint32_t getMxcsr() {
  uint32_t V;
  __asm__ __volatile__("stmxcsr %0" : "=m"(V));
  return V;
}
inline void setMxcsr(uint32_t V) {
  __asm__ __volatile__("ldmxcsr %0" ::"m"(V));
}

/// What disturbs a timed call, counted for the calling thread so far by one
/// getrusage: context switches (voluntary + involuntary), of them the
/// voluntary ones (the thread blocked: a futex, I/O) and page faults (minor
/// + major).
struct Disturbances {
  uint64_t Switches = 0, Faults = 0, Voluntary = 0;
};
inline Disturbances disturbances() {
  struct rusage R;
  if (getrusage(RUSAGE_THREAD, &R) != 0)
    return {};
  return {(uint64_t)R.ru_nvcsw + (uint64_t)R.ru_nivcsw,
          (uint64_t)R.ru_minflt + (uint64_t)R.ru_majflt, (uint64_t)R.ru_nvcsw};
}

/// The calling thread's CPU time so far, in ns (getrusage's is only as
/// fresh as the last tick).
inline uint64_t threadCpuNs() {
  struct timespec Ts;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &Ts) != 0)
    return 0;
  return (uint64_t)Ts.tv_sec * 1000000000ull + (uint64_t)Ts.tv_nsec;
}

/// Voluntary + involuntary context switches of the calling thread so far.
inline uint64_t contextSwitches() { return disturbances().Switches; }

inline bool readCounters(ThreadState *T, uint64_t *Out) {
  bool Ok = true;
  for (unsigned E = 0; E < Ctr.NumEvents; ++E)
    Ok &= T->Counters[E].read(Out[E]);
  return Ok;
}

/// The calling thread's state, created on first use; null when the runtime
/// is inert or the thread table is full.
ThreadState *initThread();
inline ThreadState *currentThread() {
  ThreadState *T = TlsThread;
  if (__builtin_expect(T && T->Gen == Reg.Generation, 1))
    return T;
  return initThread();
}

/// The thread's record of loop L, created on first use.
ThreadLoop *initThreadLoop(ThreadState *T, const LoopState *L);
inline ThreadLoop *threadLoop(ThreadState *T, const LoopState *L) {
  ThreadLoop *TL = peekThreadLoop(T, L->Index, std::memory_order_relaxed);
  if (__builtin_expect(TL != nullptr, 1))
    return TL;
  return initThreadLoop(T, L);
}

/// Caller holds RegMutex.
LoopState *newLoop(decan_loop_desc *D, bool IsRegion);
/// The region named \p Name, registered on first use.
LoopState *findRegion(const char *Name);

/// Reads the configuration once, on first use from any entry point.
void ensureInit();
/// Registers a module's descriptors (without initializing the runtime).
void registerLoops(decan_loop_desc *Descs, uint32_t Count);

} // namespace decan::rt

#endif // DECAN_RUNTIME_STATE_H
