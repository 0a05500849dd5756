/*===- sqrt_heavy.c - Square-root heavy loop ---*- C -*-===*\
|* Part of decan's validation suite (bench/codelets).                      *|
\*===----------------------------------------------------------------------===*/
/* Two square roots and a division per element: the NO_DIV variant removes
   all three, so Sat(NO_DIV) is small while the data are cache-resident. */
#define CODELET_NAME "sqrt_heavy"
#include "codelet.h"
#include <math.h>

static double *X, *Y, *Z;
static long N, Len, Off;

CODELET_NOINLINE void sqrt_heavy_kernel(const double *restrict x,
                                        const double *restrict z,
                                        double *restrict y, long n) {
  for (long i = 0; i < n; ++i)
    y[i] = sqrt(x[i] * x[i] + z[i]) + sqrt(z[i]) / x[i];
}

static void codelet_setup(long n) {
  N = n;
  Len = codelet_window_len(n, CODELET_CHUNK);
  X = (double *)codelet_alloc(sizeof(double) * n);
  Y = (double *)codelet_alloc(sizeof(double) * n);
  Z = (double *)codelet_alloc(sizeof(double) * n);
  for (long i = 0; i < n; ++i) {
    X[i] = codelet_uniform(1.0, 2.0);
    Z[i] = codelet_uniform(1.0, 3.0);
  }
}
static void codelet_call(void) {
  long o = codelet_next(&Off, N, Len);
  sqrt_heavy_kernel(X + o, Z + o, Y + o, Len);
}
static long codelet_loop_calls(void) { return 1; }
static double codelet_checksum(void) { return Y[0] + Y[N - 1] + Y[N / 2]; }
