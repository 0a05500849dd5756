//===- CatchHook.cpp - C++ catch handlers, seen by the runtime ------------===//
//
// Part of decan. Free of LLVM; no exceptions. Built into libdecan_rt.so
// only, which comes before libstdc++ in symbol lookup (linked or
// preloaded), so this __cxa_begin_catch interposes the C++ runtime's.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// An exception thrown inside a measured call and caught outside it leaves
/// that call without end_call. The handler that catches it starts with
/// __cxa_begin_catch, in a frame above the call's: the runtime drops the
/// call there, untimed, so that neither a later crash nor the next
/// measured call is blamed on it (Runtime.cpp, dropCallLeftBelow). A catch
/// inside the call (deeper) changes nothing. In a C program nothing calls
/// it.
//===----------------------------------------------------------------------===//

#include "Runtime.h"

#include <dlfcn.h>

extern "C" __attribute__((visibility("default"))) void *
__cxa_begin_catch(void *Exception) noexcept {
  using BeginCatchFn = void *(*)(void *);
  static BeginCatchFn Next =
      reinterpret_cast<BeginCatchFn>(dlsym(RTLD_NEXT, "__cxa_begin_catch"));
  decan::rt::dropCallLeftBelow((uintptr_t)__builtin_frame_address(0));
  return Next ? Next(Exception) : nullptr;
}
