//===- MachineFacts.cpp - Start-up measurements ---------------------------===//
//
// Part of decan. Free of LLVM; no exceptions.
//
//===----------------------------------------------------------------------===//

#include "MachineFacts.h"
#include "State.h"
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
      snprintf(Facts.CpuName, sizeof(Facts.CpuName), "%s", C);
      Facts.CpuName[strcspn(Facts.CpuName, "\n")] = 0;
      break;
    }
    fclose(F);
  }
  Facts.LogicalCpus = sysconf(_SC_NPROCESSORS_ONLN);
  if (gethostname(Facts.Host, sizeof(Facts.Host) - 1) != 0)
    Facts.Host[0] = 0;
  int Fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (Fd >= 0) {
    ssize_t N = read(Fd, Facts.Argv, sizeof(Facts.Argv) - 1);
    Facts.ArgvLen = N > 0 ? (size_t)N : 0;
    close(Fd);
  }
  static const char *const RankVars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK",
                                         "PMIX_RANK", "SLURM_PROCID",
                                         "MV2_COMM_WORLD_RANK"};
  Facts.Rank[0] = 0;
  for (const char *V : RankVars) {
    const char *S = getenv(V);
    if (!S || !*S || strspn(S, "0123456789") != strlen(S) || strlen(S) > 18)
      continue;
    snprintf(Facts.Rank, sizeof(Facts.Rank), "%s", S);
    Facts.RankPid = (int)getpid();
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
  Facts.TscHz = (double)(T1 - T0) * 1e9 / (double)(N1 - N0);
  Facts.TscSource = "calibrated against CLOCK_MONOTONIC (20 ms)";
}

void measureProbe() {
  uint64_t S[kProbeSamples];
  for (unsigned I = 0; I < kProbeSamples; ++I) {
    uint64_t A = decan_tsc_start();
    uint64_t B = decan_tsc_stop();
    S[I] = B - A;
  }
  std::sort(S, S + kProbeSamples);
  Facts.ProbeMin = S[0];
  Facts.ProbeMedian = S[kProbeSamples / 2];
  measureProbeCallCost();
}

/// \p N dependent multiplies: work of a known, exact length (N times the
/// multiply's latency) whatever the core's width.
static __attribute__((noinline)) uint64_t multiplyChain(uint64_t X, long N) {
  for (long I = 0; I < N; ++I)
    __asm__ __volatile__("imul %0, %0" : "+r"(X));
  return X;
}

/// Mean of the kept (fastest nine tenths) of \p S, in 1/100 cycle: the
/// slowest tenth are interrupts and migrations. A mean, not a median: on
/// CPUs whose TSC advances in steps (about 25 cycles on AMD Zen guests),
/// single readings are quantized and only their mean resolves a cycle.
static uint64_t trimmedMeanCenti(uint64_t *S, unsigned N) {
  std::sort(S, S + N);
  unsigned Kept = N - N / 10;
  uint64_t Sum = 0;
  for (unsigned I = 0; I < Kept; ++I)
    Sum += S[I];
  return Sum * 100 / Kept;
}

/// What the probes add to a call longer than they are: the intercept of
/// probed time against known work. The empty region costs more (ProbeMedian):
/// there, the stop probe waits for the start probe's own TSC read, which a
/// real body overlaps. Subtracting the empty region's cost from every call
/// made short calls look up to 2x shorter than they run in the program.
/// Short and long chains alternate, so a clock-frequency change during the
/// calibration moves both alike; the median of five estimates is kept.
void measureProbeCallCost() {
  constexpr long kShort = 64, kLong = 128;
  constexpr unsigned kRounds = 5, kEach = 401;
  int64_t Estimates[kRounds];
  volatile uint64_t Sink = 3;
  for (unsigned R = 0; R < kRounds; ++R) {
    uint64_t Short[kEach], Long[kEach];
    for (unsigned I = 0; I < kEach; ++I) {
      uint64_t A = decan_tsc_start();
      Sink = multiplyChain(Sink, kShort);
      Short[I] = decan_tsc_stop() - A;
      A = decan_tsc_start();
      Sink = multiplyChain(Sink, kLong);
      Long[I] = decan_tsc_stop() - A;
    }
    // Straight line through (kShort, Short) and (kLong, Long), at 0 work.
    Estimates[R] = 2 * (int64_t)trimmedMeanCenti(Short, kEach) -
                   (int64_t)trimmedMeanCenti(Long, kEach);
  }
  std::sort(Estimates, Estimates + kRounds);
  int64_t Ceiling = (int64_t)Facts.ProbeMedian * 100;
  Facts.ProbeCallCentiCycles =
      (uint64_t)std::clamp<int64_t>(Estimates[kRounds / 2], 0, Ceiling);
}

/// A descriptor's two stub fields, for measureCountdownCost().
struct CountdownProbe {
  volatile uint32_t Active;
  volatile int32_t Countdown;
};

/// A 4-iteration call behind the stub's test of \p D, shaped as the
/// plugin emits it (abi.h): the active path out of line, counting down, and
/// back to the loop; the countdown never reaches 0 here.
static __attribute__((noinline)) uint64_t
countdownWork(CountdownProbe *D, const uint64_t *A, long N) {
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
static __attribute__((noinline)) uint64_t
countdownRun(CountdownProbe *D, const uint64_t *A, long Calls,
             volatile long *Trips, uint64_t *Sink) {
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
  Facts.CountdownCentiCycles = Median > 0 ? (uint64_t)Median * 100 / kCalls : 0;
}

/// Time the main thread has spent runnable but waiting for a CPU (us), from
/// /proc/self/schedstat; 0 when unknown.
uint64_t mainThreadRunqueueWaitUs() {
  int Fd = open("/proc/self/schedstat", O_RDONLY | O_CLOEXEC);
  if (Fd < 0)
    return 0;
  char Buf[128];
  ssize_t N = read(Fd, Buf, sizeof(Buf) - 1);
  close(Fd);
  if (N <= 0)
    return 0;
  Buf[N] = 0;
  // "<ns on CPU> <ns waiting on a runqueue> <timeslices>"
  unsigned long long OnCpu = 0, Waiting = 0;
  if (sscanf(Buf, "%llu %llu", &OnCpu, &Waiting) != 2)
    return 0;
  return Waiting / 1000;
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
  Facts.SlotFixedCycles = 6 * S[4];
}

void setupEvents() {
  Ctr.NumEvents = 0;
  Ctr.NumUnavail = 0;
  Ctr.CountersOk = false;
  Ctr.Rdpmc = false;
  Ctr.CountersMsg[0] = 0;
  if (Cfg.NumEvents == 0) {
    snprintf(Ctr.CountersMsg, sizeof(Ctr.CountersMsg),
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
      Ctr.Rdpmc |= Probe.usesRdpmc();
      Ctr.Events[Ctr.NumEvents++] = {Attr, Name};
      continue;
    }
    snprintf(Ctr.Unavail[Ctr.NumUnavail][0], sizeof(Ctr.Unavail[0][0]), "%s",
             Name);
    snprintf(Ctr.Unavail[Ctr.NumUnavail][1], sizeof(Ctr.Unavail[0][1]), "%s",
             Err);
    ++Ctr.NumUnavail;
    if (!Known) {
      AnyUnknown = true;
      fprintf(stderr, "decan: error: DECAN_EVENTS: %s (event ignored)\n", Err);
      addWarning("DECAN_EVENTS: %s (event ignored)", Err);
    } else if (!FirstErr[0]) {
      snprintf(FirstErr, sizeof(FirstErr), "%s", Err);
    }
  }
  Ctr.CountersOk = Ctr.NumUnavail == 0;
  if (FirstErr[0]) {
    fprintf(stderr, "decan: warning: counters unavailable: %s; %s\n", FirstErr,
            Ctr.NumEvents ? "measuring the events that opened, and rdtsc"
                          : "measuring with rdtsc only");
    addWarning("counters unavailable: %s", FirstErr);
  }
  snprintf(Ctr.CountersMsg, sizeof(Ctr.CountersMsg), "%s%s%s",
           Ctr.CountersOk ? "all requested events counted"
                          : (FirstErr[0] ? FirstErr : "unknown event name(s)"),
           AnyUnknown && FirstErr[0] ? "; unknown event name(s) too" : "",
           Ctr.CountersOk ? (Ctr.Rdpmc ? " (rdpmc)" : " (read(2))") : "");
}

} // namespace decan::rt
