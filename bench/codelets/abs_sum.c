/*===- abs_sum.c - Absolute-value reduction (Numerical Recipes hqr) ---*- C
-*-===*\
|* Part of decan's validation suite (bench/codelets).                      *|
\*===----------------------------------------------------------------------===*/
/* hqr's anorm += |a(j,i)| (thesis Figure 7.2), single precision. Without
   reassociation the sum is one add chain: FP-bound while cached. */
#define CODELET_NAME "abs_sum"
#include "codelet.h"
#include <math.h>

static float *A, Res;
static long N, Len, Off;

CODELET_NOINLINE float abs_sum_kernel(const float *restrict a, long n) {
  float anorm = 0;
  for (long j = 0; j < n; ++j)
    anorm += fabsf(a[j]);
  return anorm;
}

static void codelet_setup(long n) {
  N = n;
  Len = codelet_window_len(n, CODELET_CHUNK);
  A = (float *)codelet_alloc(sizeof(float) * n);
  for (long i = 0; i < n; ++i)
    A[i] = (float)codelet_uniform(-1.0, 1.0);
}
static void codelet_call(void) {
  long o = codelet_next(&Off, N, Len);
  Res += abs_sum_kernel(A + o, Len) * 1e-6f;
}
static long codelet_loop_calls(void) { return 1; }
static double codelet_checksum(void) { return Res; }
