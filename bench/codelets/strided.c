/*===- strided.c - Strided column access ---*- C -*-===*\
|* Part of decan's validation suite (bench/codelets).                      *|
\*===----------------------------------------------------------------------===*/
/* Column sums of a row-major N x 16 matrix: the inner loop walks one column,
   128 bytes (two cache lines) per iteration, so it touches a new line every
   access. FP-bound (the sum is one chain) while L1-resident, LS-bound with a
   large DL1 gain once the matrix leaves the caches. */
#define CODELET_NAME "strided"
#include "codelet.h"

enum { LD = 16 };
static double *A, S[LD];
static long N, Len, Off;

CODELET_NOINLINE void strided_kernel(const double *restrict a, long n,
                                     double *restrict out) {
  for (int j = 0; j < 4; ++j) {
    double t = 0;
    for (long i = 0; i < n; ++i)
      t += a[i * LD + j * 4];
    out[j] = t;
  }
}

static void codelet_setup(long n) {
  N = n;
  Len = codelet_window_len(n, CODELET_CHUNK / LD);
  A = (double *)codelet_alloc(sizeof(double) * LD * n);
  for (long i = 0; i < LD * n; ++i)
    A[i] = codelet_uniform(0.0, 1.0);
}
/* Windows of rows. */
static void codelet_call(void) {
  long o = codelet_next(&Off, N, Len);
  strided_kernel(A + o * LD, Len, S);
}
static long codelet_loop_calls(void) { return 4; }
static double codelet_checksum(void) { return S[0] + S[3]; }
