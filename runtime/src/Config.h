//===- Config.h - Run configuration read from the environment ---*- C++ -*-===//
//
// Part of decan. Free of LLVM; no exceptions.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The DECAN_* variables `decan run` sets (docs/design.md, run-time
/// protocol), parsed once at startup into plain data. Parsing takes a getenv-
/// like callback so tests can feed it without touching the real environment.
//===----------------------------------------------------------------------===//

#ifndef DECAN_RUNTIME_CONFIG_H
#define DECAN_RUNTIME_CONFIG_H

#include "decan/abi.h"
#include "decan/abi_names.h"

#include <stdint.h>

namespace decan::rt {

enum class Mode : uint8_t { Rotate, Replace, Instance };

/// What begin_call does to the FP environment (DECAN_FP_ENV).
enum class FpEnv : uint8_t {
  /// Exceptions masked, FTZ and DAZ for the call, every variant alike.
  Ftz,
  /// MXCSR left as the program set it, every variant alike.
  Keep
};

constexpr unsigned kMaxEvents = 8;
constexpr unsigned kMaxConfigWarnings = 8;

/// Names of the variants, indexed by enum decan_variant (abi_names.h).
static constexpr auto &kVariantNames = decan_variant_names;
const char *modeName(Mode M);
/// Index of a variant name (decan/variants.def, case-sensitive), or -1.
int variantIndex(const char *Name, unsigned Len);

struct Config {
  /// False when DECAN_LOOPS is unset: the runtime stays inert.
  bool Active = false;
  bool AllLoops = false;
  /// Copy of DECAN_LOOPS (comma list), "" when unset.
  char Loops[4096] = {};
  /// Requested variants in rotation order (DECAN_VARIANTS order, no
  /// duplicates).
  uint8_t Variants[DECAN_NUM_VARIANTS] = {};
  unsigned NumVariants = 0;
  Mode RunMode = Mode::Rotate;
  /// Measured calls wanted per loop, variant and thread; 0 = unlimited.
  uint64_t Reps = 31;
  uint64_t Instance = 1;
  uint64_t Warmup = 1;
  uint64_t MaxRecords = 100000;
  /// Percent of a loop's time its whole-run accounting may cost
  /// (DECAN_ACCOUNT_BUDGET); loops with shorter calls get a stride. 0 times
  /// every call.
  uint64_t AccountBudget = 5;
  /// Time the regions the plugin placed around outer loops and functions
  /// (`decan flags --regions`, DECAN_REGIONS=1, `decan run --regions`).
  bool Regions = false;
  FpEnv Fp = FpEnv::Ftz;
  char Events[kMaxEvents][128] = {};
  unsigned NumEvents = 0;
  char OutputDir[1024] = ".";
  /// DECAN_LIB_MAP: file of `--lib` redirections (Objects.h), "" when unset.
  char LibMap[1024] = {};
  /// DECAN_LATE_DIR: where a base copy's loops that ran are requested and
  /// its late pack is found (Late.h), "" when unset; DECAN_LATE_AFTER_MS:
  /// run time before the request; DECAN_LATE_WAIT_MS: how long the thread
  /// that writes a copy's first request waits for its pack (0: not at all).
  char LateDir[1024] = {};
  uint64_t LateAfterMs = 10;
  uint64_t LateWaitMs = 0;
  /// DECAN_LATE_DLOPEN=1 (`decan run --lib auto`): a dlopen of a library
  /// without a copy asks decan run for one in DECAN_LATE_DIR (Late.h).
  bool LateDlopen = false;
  /// Problems found while parsing (unknown variant, bad number...).
  char Warnings[kMaxConfigWarnings][192] = {};
  unsigned NumWarnings = 0;

  /// True when loop `Id` is selected by DECAN_LOOPS.
  bool selects(const char *Id) const;
};

using GetEnvFn = const char *(*)(const char *);

/// Fills `C` from the DECAN_* variables returned by `GetEnv`.
void parseConfig(Config &C, GetEnvFn GetEnv);

} // namespace decan::rt

#endif // DECAN_RUNTIME_CONFIG_H
