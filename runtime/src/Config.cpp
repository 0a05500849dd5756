//===- Config.cpp - Run configuration read from the environment -----------===//
//
// Part of decan. Free of LLVM; no exceptions.
//
//===----------------------------------------------------------------------===//

#include "Config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace decan::rt {

const char *modeName(Mode M) {
  switch (M) {
  case Mode::Rotate:
    return "rotate";
  case Mode::Replace:
    return "replace";
  case Mode::Instance:
    return "instance";
  }
  return "rotate";
}

int variantIndex(const char *Name, unsigned Len) {
  return decan_variant_parse(Name, Len);
}

static void addWarning(Config &C, const char *Fmt, const char *A,
                       const char *B = "") {
  if (C.NumWarnings == kMaxConfigWarnings)
    return;
  snprintf(C.Warnings[C.NumWarnings++], sizeof(C.Warnings[0]), Fmt, A, B);
}

static void copyStr(char *Dst, size_t Cap, const char *Src) {
  size_t N = strlen(Src);
  if (N >= Cap)
    N = Cap - 1;
  memcpy(Dst, Src, N);
  Dst[N] = 0;
}

/// Calls `Fn(begin, len)` for each non-empty, space-trimmed comma item.
template <typename F> static void forEachItem(const char *S, F Fn) {
  while (*S) {
    const char *E = strchr(S, ',');
    if (!E)
      E = S + strlen(S);
    const char *B = S, *End = E;
    while (B < End && (*B == ' ' || *B == '\t'))
      ++B;
    while (End > B && (End[-1] == ' ' || End[-1] == '\t'))
      --End;
    if (End > B)
      Fn(B, (unsigned)(End - B));
    S = *E ? E + 1 : E;
  }
}

static void parseCount(Config &C, GetEnvFn GetEnv, const char *Var,
                       uint64_t &Out) {
  const char *S = GetEnv(Var);
  if (!S || !*S)
    return;
  char *End = nullptr;
  unsigned long long V = strtoull(S, &End, 10);
  if (*End || *S == '-') {
    addWarning(C, "%s='%s' is not a non-negative integer; default used", Var,
               S);
    return;
  }
  Out = V;
}

void parseConfig(Config &C, GetEnvFn GetEnv) {
  C = Config();
  const char *Loops = GetEnv("DECAN_LOOPS");
  if (!Loops)
    return;
  C.Active = true;
  copyStr(C.Loops, sizeof(C.Loops), Loops);
  forEachItem(C.Loops, [&](const char *B, unsigned N) {
    if (N == 3 && memcmp(B, "all", 3) == 0)
      C.AllLoops = true;
  });

  const char *Vs = GetEnv("DECAN_VARIANTS");
  if (Vs && *Vs) {
    forEachItem(Vs, [&](const char *B, unsigned N) {
      int V = variantIndex(B, N);
      if (V < 0) {
        char Name[64];
        snprintf(Name, sizeof(Name), "%.*s", (int)N, B);
        addWarning(C, "DECAN_VARIANTS: unknown variant '%s' ignored%s", Name);
        return;
      }
      for (unsigned I = 0; I < C.NumVariants; ++I)
        if (C.Variants[I] == V)
          return;
      C.Variants[C.NumVariants++] = (uint8_t)V;
    });
  }
  if (C.NumVariants == 0)
    for (int V = 0; V < DECAN_NUM_VARIANTS; ++V)
      C.Variants[C.NumVariants++] = (uint8_t)V;

  if (const char *M = GetEnv("DECAN_MODE"); M && *M) {
    if (!strcmp(M, "rotate"))
      C.RunMode = Mode::Rotate;
    else if (!strcmp(M, "replace"))
      C.RunMode = Mode::Replace;
    else if (!strcmp(M, "instance"))
      C.RunMode = Mode::Instance;
    else
      addWarning(C,
                 "DECAN_MODE='%s' is not rotate, replace or instance; "
                 "rotate used%s",
                 M);
  }
  parseCount(C, GetEnv, "DECAN_REPS", C.Reps);
  parseCount(C, GetEnv, "DECAN_INSTANCE", C.Instance);
  parseCount(C, GetEnv, "DECAN_WARMUP", C.Warmup);
  parseCount(C, GetEnv, "DECAN_MAX_RECORDS", C.MaxRecords);
  parseCount(C, GetEnv, "DECAN_ACCOUNT_BUDGET", C.AccountBudget);
  if (const char *R = GetEnv("DECAN_REGIONS"))
    C.Regions = !strcmp(R, "1");
  if (C.Instance == 0) {
    addWarning(C, "DECAN_INSTANCE counts from 1; 1 used%s%s", "");
    C.Instance = 1;
  }

  if (const char *E = GetEnv("DECAN_EVENTS"); E && *E)
    forEachItem(E, [&](const char *B, unsigned N) {
      if (C.NumEvents == kMaxEvents) {
        addWarning(C, "DECAN_EVENTS: more than 8 events; the rest ignored%s%s",
                   "");
        return;
      }
      snprintf(C.Events[C.NumEvents++], sizeof(C.Events[0]), "%.*s", (int)N, B);
    });

  if (const char *F = GetEnv("DECAN_FP_ENV"); F && *F) {
    if (!strcmp(F, "keep"))
      C.Fp = FpEnv::Keep;
    else if (!strcmp(F, "ftz"))
      C.Fp = FpEnv::Ftz;
    else
      addWarning(C, "DECAN_FP_ENV='%s' is not ftz or keep; ftz used%s", F);
  }

  if (const char *O = GetEnv("DECAN_OUTPUT"); O && *O)
    copyStr(C.OutputDir, sizeof(C.OutputDir), O);
  if (const char *M = GetEnv("DECAN_LIB_MAP"); M && *M)
    copyStr(C.LibMap, sizeof(C.LibMap), M);
  if (const char *D = GetEnv("DECAN_LATE_DIR"); D && *D)
    copyStr(C.LateDir, sizeof(C.LateDir), D);
  parseCount(C, GetEnv, "DECAN_LATE_AFTER_MS", C.LateAfterMs);
  parseCount(C, GetEnv, "DECAN_LATE_WAIT_MS", C.LateWaitMs);
  if (const char *D = GetEnv("DECAN_LATE_DLOPEN"); D && !strcmp(D, "1"))
    C.LateDlopen = true;
}

bool Config::selects(const char *Id) const {
  if (!Active)
    return false;
  if (AllLoops)
    return true;
  size_t L = strlen(Id);
  bool Found = false;
  forEachItem(Loops, [&](const char *B, unsigned N) {
    if (N == L && memcmp(B, Id, L) == 0)
      Found = true;
  });
  return Found;
}

} // namespace decan::rt
