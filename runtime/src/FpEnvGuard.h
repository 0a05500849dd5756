//===- FpEnvGuard.h - The program's FP environment, untouched ---*- C++ -*-===//
//
// Part of decan. Free of LLVM; no exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The runtime computes in floating point (TSC calibration, the report's
/// numbers) inside the program's own threads, so
/// its inexact results would raise sticky flags the program can read with
/// fetestexcept(). Every such piece of work runs inside an FpEnvGuard, which
/// restores the whole environment, the x87 control and status words and
/// MXCSR (flags, masks, rounding, FTZ/DAZ), as it found it. fegetenv and
/// fesetenv are plain loads and stores of those registers on x86-64 glibc,
/// so the guard is also safe in signal handlers.
//===----------------------------------------------------------------------===//

#ifndef DECAN_RUNTIME_FPENVGUARD_H
#define DECAN_RUNTIME_FPENVGUARD_H

#include <fenv.h>

namespace decan::rt {

class FpEnvGuard {
public:
  FpEnvGuard() { fegetenv(&Saved); }
  ~FpEnvGuard() { fesetenv(&Saved); }
  FpEnvGuard(const FpEnvGuard &) = delete;
  FpEnvGuard &operator=(const FpEnvGuard &) = delete;

private:
  fenv_t Saved;
};

} // namespace decan::rt

#endif // DECAN_RUNTIME_FPENVGUARD_H
