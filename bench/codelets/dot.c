/*===- dot.c - Dot product: one accumulator chain ---*- C -*-===*\
|* Part of decan's validation suite (bench/codelets).                      *|
\*===----------------------------------------------------------------------===*/
/* s += a[i] * b[i] without reassociation: one add (or FMA) chain through
   the accumulator, whose latency (4 cycles a step) bounds the loop while
   the two loads are cached. NO_RED deletes the chain's adds and keeps the
   loads and the multiply (issue 16). */
#define CODELET_NAME "dot"
#include "codelet.h"

static double *A, *B, Sum;
static long N, Len, Off;

CODELET_NOINLINE double dot_kernel(const double *restrict a,
                                   const double *restrict b, long n) {
  double s = 0;
  for (long i = 0; i < n; ++i)
    s += a[i] * b[i];
  return s;
}

static void codelet_setup(long n) {
  N = n;
  Len = codelet_window_len(n, CODELET_CHUNK);
  A = (double *)codelet_alloc(sizeof(double) * n);
  B = (double *)codelet_alloc(sizeof(double) * n);
  for (long i = 0; i < n; ++i) {
    A[i] = codelet_uniform(1.0, 2.0);
    B[i] = codelet_uniform(1.0, 2.0);
  }
}
static void codelet_call(void) {
  long o = codelet_next(&Off, N, Len);
  Sum += dot_kernel(A + o, B + o, Len);
}
static long codelet_loop_calls(void) { return 1; }
static double codelet_checksum(void) { return Sum; }
