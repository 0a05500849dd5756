//===- Rewritten.cpp - Binaries rewritten by mc-rewriter ------------------===//
//
// Part of decan. Free of LLVM; no exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// A rewritten binary (or library) carries its descriptors in a writable
/// segment that starts with a DECANRW1 header (abi.h): the runtime finds it
/// among the loaded objects (Objects.cpp), turns its offsets into pointers,
/// fills in the entry points and registers the descriptors.
//===----------------------------------------------------------------------===//

#include "Guard.h"
#include "Late.h"
#include "Runtime.h"
#include "State.h"

#include <atomic>
#include <stddef.h>
#include <string.h>
#include <type_traits>

namespace decan::rt {

/// A relaxed load that compiles to a plain move, for code that may not
/// touch the vector registers (std::atomic's members are always_inline
/// with the default target features, which general-regs-only code cannot
/// inline).
template <class T>
__attribute__((always_inline, target("general-regs-only"))) inline T
relaxedLoad(const std::atomic<T> &A) {
  static_assert(sizeof(std::atomic<T>) == sizeof(T));
  return __atomic_load_n(reinterpret_cast<const T *>(&A), __ATOMIC_RELAXED);
}

} // namespace decan::rt

using namespace decan::rt;

/// The rewritten dispatcher's first call (DECAN_QUICK_CALL), made before
/// it saves the extended state, so it may touch general registers only
/// (general-regs-only, no call): on a loop that several threads run, each
/// counts its stride down in begin_call (ThreadLoop::Countdown), and those
/// calls, most of a short loop's, skip the state's save and restore (on
/// zstd -T2 they were half of the process's time). Everything else (a
/// call to time, a nest, a thread's first call, a late loop) answers 1:
/// the full begin_call decides, as before.
extern "C"
    __attribute__((visibility("hidden"), target("general-regs-only"))) int
    decan_rewritten_quick_call(decan_loop_desc *Desc) {
  auto *L = static_cast<LoopState *>(Desc->runtime_state);
  ThreadState *T = TlsThread;
  if (!L || L->LateWaiting || !T || T->Gen != Reg.Generation ||
      T->InFlightLoop >= 0)
    return 1;
  ThreadLoopPage *P = relaxedLoad(T->LoopPages[L->Index >> kLoopPageBits]);
  ThreadLoop *TL = P ? relaxedLoad(P->E[L->Index & (kLoopPage - 1)]) : nullptr;
  if (!TL)
    return 1;
  ++TL->Tot.DispatchCalls;
  // As begin_call's first test of a loop that several threads run.
  if (relaxedLoad(L->Threads) == 1 || TL->Countdown <= 1)
    return 1;
  --TL->Countdown;
  ++TL->Tot.QuickCalls;
  return -1;
}

namespace decan::rt {

bool relocateRewritten(decan_rewritten_header *H, const char *Path) {
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
    Fix(D.source);
    if (!D.file)
      D.file = "";
  }
  // Its dispatcher passes its frame and fault entry (Guard.h).
  H->begin_call = decan_rewritten_begin_call;
  H->end_call = __decan_end_call;
  // A copy with regions has a header long enough for their entry points.
  if (H->descs_offset >= sizeof(decan_rewritten_header)) {
    H->region_enter = __decan_region_enter;
    H->region_leave = __decan_region_leave;
  }
  H->relocated = 1;
  noteLateModule(H, Descs, Path);
  registerLoops(Descs, H->count);
  installLatePacks();
  return true;
}

unsigned scanSegments(uintptr_t Base, const ElfW(Phdr) * Phdrs, unsigned N,
                      const char *Path) {
  unsigned Count = 0;
  for (unsigned I = 0; I < N; ++I) {
    const ElfW(Phdr) &P = Phdrs[I];
    if (P.p_type != PT_LOAD || !(P.p_flags & PF_W) || !(P.p_flags & PF_R) ||
        P.p_memsz < offsetof(decan_rewritten_header, region_enter))
      continue;
    auto *H = reinterpret_cast<decan_rewritten_header *>(Base + P.p_vaddr);
    if (memcmp(H->magic, "DECANRW1", 8) == 0 && relocateRewritten(H, Path))
      ++Count;
  }
  return Count;
}

} // namespace decan::rt
