//===- Regions.cpp - decan runtime: regions ------------------------------===//
//
// Part of decan. Free of LLVM; no exceptions; C-linkable entry points.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Regions, timed like a loop's REF calls: the ones people mark
/// (decan_region_begin/end, decan/runtime.h) and the ones the plugin places
/// around functions and outer loops (__decan_region_enter/leave, abi.h),
/// which take decan's own cost inside them out of their time.
//===----------------------------------------------------------------------===//

#include "Runtime.h"
#include "Sampling.h"
#include "State.h"
#include "decan/runtime.h"
#include "decan/tsc.h"

#include <atomic>
#include <stdint.h>

using namespace decan::rt;

DECAN_API void decan_region_begin(const char *Name) {
  ensureInit();
  if (!Proc.Active || !Name)
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
  F.Placed = false;
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
  F.EvFail = Ctr.NumEvents && !readCounters(T, F.Ev);
  F.T0 = decan_tsc_start();
}

/// Regions the plugin placed (DECAN_DESC_REGION): the descriptor is known,
/// so no name lookup; only a thread's outermost activation of a region is
/// timed (a recursive function counts once), and what decan added inside
/// (the measured loops' variant calls, probes and runtime stays) is taken
/// out of the region's time.
DECAN_API void __decan_region_enter(decan_loop_desc *Desc) {
  uint64_t E0 = rawTsc();
  auto *L = static_cast<LoopState *>(Desc->runtime_state);
  ThreadState *T = currentThread();
  if (!L || !T)
    return;
  // This stay is decan's, also for the regions that enclose this one.
  struct AddStay {
    ThreadState *T;
    uint64_t E0;
    ~AddStay() { T->DecanCycles += rawTsc() - E0; }
  } Stay{T, E0};
  if (T->RegionDepth >= kMaxRegionDepth) {
    ++T->RegionOverflow;
    return;
  }
  ThreadLoop *TL = threadLoop(T, L);
  RegionFrame &F = T->Regions[T->RegionDepth++];
  F.Loop = L->Index;
  F.Placed = true;
  F.Measured = TL && TL->RegionActive++ == 0;
  if (!F.Measured)
    return;
  // At a stride k (active == 2, one thread) this activation stands for the
  // k-1 before it that only counted down. On one thread it stays open in
  // the descriptor (3) with its nesting depth in `countdown`: recursion
  // stays in the stubs, and the leave stub calls back at depth 0.
  bool OneThread = L->Threads.load(std::memory_order_relaxed) == 1;
  F.Weight = OneThread && Desc->active == 2 ? TL->Stride : 1;
  if (OneThread) {
    Desc->countdown = 1;
    Desc->active = 3;
  } else {
    Desc->active = 1;
  }
  F.Call = TL->Rot.Calls += F.Weight;
  F.Enter = E0;
  F.T0 = decan_tsc_start();
  // The stay so far is before the region's start: its enclosing regions'
  // share of decan's cost, not its own.
  T->DecanCycles += F.T0 - E0;
  Stay.E0 = F.T0;
  F.Decan = T->DecanCycles;
}

DECAN_API void __decan_region_leave(decan_loop_desc *Desc) {
  uint64_t T1 = decan_tsc_stop();
  auto *L = static_cast<LoopState *>(Desc->runtime_state);
  ThreadState *T = TlsThread;
  if (!L || !T || T->Gen != Reg.Generation)
    return;
  struct AddStay {
    ThreadState *T;
    uint64_t E0;
    ~AddStay() { T->DecanCycles += rawTsc() - E0; }
  } Stay{T, T1};
  if (T->RegionOverflow) {
    --T->RegionOverflow;
    return;
  }
  // Frames above this region's were left without their leave (an
  // exception or longjmp unwound through them): dropped, untimed. A leave
  // with no frame of its own (an exit block also reached from outside the
  // loop) changes nothing.
  unsigned Depth = T->RegionDepth;
  while (Depth && !(T->Regions[Depth - 1].Placed &&
                    T->Regions[Depth - 1].Loop == L->Index))
    --Depth;
  if (!Depth) {
    // Depth 0 reached by a thread without the open activation: a second
    // thread ran the region in the stubs. Every activation goes to the
    // runtime from now on.
    if (Desc->active == 3)
      Desc->active = 1;
    return;
  }
  for (unsigned I = Depth; I < T->RegionDepth; ++I)
    if (T->Regions[I].Placed && T->Regions[I].Measured)
      if (LoopState *Dropped =
              Reg.Loops[T->Regions[I].Loop].load(std::memory_order_relaxed))
        if (ThreadLoop *DT =
                peekThreadLoop(T, Dropped->Index, std::memory_order_relaxed))
          DT->RegionActive = 0;
  T->RegionDepth = Depth - 1;
  RegionFrame &F = T->Regions[Depth - 1];
  ThreadLoop *TL = peekThreadLoop(T, L->Index, std::memory_order_relaxed);
  if (!TL)
    return;
  if (TL->RegionActive)
    --TL->RegionActive;
  if (!F.Measured)
    return;
  uint64_t Decan = T->DecanCycles - F.Decan;
  uint64_t Cycles = T1 - F.T0;
  Cycles = Cycles > Decan ? Cycles - Decan : 0;
  record(TL, DECAN_REF, Cycles, 0, F.Call, 0, true, F.Ev, F.Ev);
  // An activation that stands for others (a stride) counts as a loop's
  // call does (Sampling.h, standing): switched out since the last timed
  // one, its time counts once and the others' as its clean neighbour's, so
  // a preempted thread's wait is never multiplied; only activations timed
  // alone keep theirs (single_cycles: the tool takes the run's wait out).
  uint64_t Ctx = 0;
  bool Switched = false;
  if (F.Weight > 1) {
    Ctx = contextSwitches();
    Switched = Ctx != TL->StrideCtx;
  }
  TL->Weight = F.Weight;
  TL->Tot.add(F.Call, Cycles, 0, F.Weight,
              standing(TL, Cycles, 0, Switched, false));
  // The stays around it (enter, leave: this one until now) are what a
  // timed activation costs; short, frequent regions (small functions) get
  // an accounting stride as loops do, from the second timed activation on.
  TL->Tot.InsideCycles += Cycles + F.T0 - F.Enter + (rawTsc() - T1);
  if (L->Threads.load(std::memory_order_relaxed) != 1 ||
      Sched.RunMode != Mode::Rotate || (Desc->flags & DECAN_DESC_RECURSIVE)) {
    Desc->active = 1;
    return;
  }
  uint64_t Timed = TL->Tot.TimedCalls;
  if (Timed >= kStrideMinCalls &&
      (Timed == kStrideMinCalls || !(Timed & kStrideUpdateMask)))
    TL->StrideCap = strideCap(TL);
  uint64_t Next = TL->StrideCap;
  TL->Stride = Next;
  if (Next > 1) {
    // The next timed activation will stand for others: switches from here.
    TL->StrideCtx = F.Weight > 1 ? Ctx : contextSwitches();
    L->Strided.store(true, std::memory_order_relaxed);
    Desc->countdown = (int32_t)Next;
    Desc->active = 2;
  } else {
    Desc->active = 1;
  }
}

DECAN_API void decan_region_end(void) {
  uint64_t T1 = decan_tsc_stop();
  if (!Proc.Active)
    return;
  ThreadState *T = TlsThread;
  if (!T || T->Gen != Reg.Generation)
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
  bool EvFail = F.EvFail || (Ctr.NumEvents && !readCounters(T, EvEnd));
  uint64_t Ctx = contextSwitches();
  LoopState *L = Reg.Loops[F.Loop].load(std::memory_order_relaxed);
  ThreadLoop *TL = peekThreadLoop(T, L->Index, std::memory_order_relaxed);
  record(TL, DECAN_REF, T1 - F.T0, 0, F.Call,
         Ctx != F.Ctx ? DECAN_SAMPLE_SWITCHED : 0, EvFail, F.Ev, EvEnd);
  TL->Tot.add(F.Call, T1 - F.T0, 0);
}
