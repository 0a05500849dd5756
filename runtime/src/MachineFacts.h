//===- MachineFacts.h - What the runtime measures at start-up ---*- C++ -*-===//
//
// Part of decan. Free of LLVM; no exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Start-up measurements (into Facts and Ctr, State.h): the CPU and host,
/// the TSC rate, the probe's own cost, a sampling slot's fixed cost, the
/// stub's countdown cost, a rewritten dispatcher's cost, and which
/// requested counters open.
//===----------------------------------------------------------------------===//

#ifndef DECAN_RUNTIME_MACHINEFACTS_H
#define DECAN_RUNTIME_MACHINEFACTS_H

#include <stdint.h>

namespace decan::rt {

/// The probe's cost is the median of this many empty probed regions.
constexpr unsigned kProbeSamples = 1001;

/// CPU name, logical CPUs, host, argv, MPI rank.
void readMachineFacts();
/// TSC cycles per second, against CLOCK_MONOTONIC.
/// CLOCK_MONOTONIC in nanoseconds.
uint64_t nowNs();

void calibrateTsc();
/// The empty probed region's min and median cost, then what the probes add
/// to a longer call (measureProbeCallCost).
void measureProbe();
/// The probes' cost on a call longer than the probes: the intercept of
/// probed time against chains of known length.
void measureProbeCallCost();
/// The context-switch reads around a sampling slot.
void measureSlotCost();
/// What the stub's countdown adds to a call that skips the runtime.
void measureCountdownCost();
/// What a rewritten dispatcher adds outside the runtime's timing
/// (DispatchCost.cpp).
void measureDispatchCost();
/// CPU time of all the process's threads (us), 0 when unknown.
uint64_t processCpuUs();
/// Main thread's time runnable but not running (us), 0 when unknown.
uint64_t mainThreadRunqueueWaitUs();
/// Opens the DECAN_EVENTS counters once to see which work.
void setupEvents();

} // namespace decan::rt

#endif // DECAN_RUNTIME_MACHINEFACTS_H
