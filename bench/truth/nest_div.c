/* nest_div: a gemm-like nest whose inner loop is short (LEN elements, ~150
   cycles a call): c[j] += a[k] * b[k][j] / d over K rows; fix: the
   reciprocal of the loop-invariant d hoisted. Data in L1. Measured as one
   nest (`decan flags --nests`). Variant: NO_DIV. Both inner loops are
   vectorised without interleaving: without a division the vectoriser would
   interleave the fix by 2, a change of code NO_DIV does not model. */
#ifndef LEN
#define LEN 32
#endif
#ifndef ROWS
#define ROWS 32
#endif
#ifndef CALLS
#define CALLS 20000
#endif
#include "truth.h"
static double A[ROWS], B[ROWS][LEN], C[LEN], D = 1.0000003;
static void setup(void) {
  for (long K = 0; K < ROWS; ++K) {
    A[K] = 1 + K % 3;
    for (long J = 0; J < LEN; ++J)
      B[K][J] = 1 + (K + J) % 7;
  }
}
NOINLINE double kernel(const double *a, double (*b)[LEN], double *c, long n,
                       double d) {
#ifndef FIX
  for (long k = 0; k < ROWS; ++k)
#pragma clang loop interleave_count(1)
    for (long j = 0; j < n; ++j)
      c[j] += a[k] * b[k][j] / d;
#else
  double r = 1 / d;
  for (long k = 0; k < ROWS; ++k)
#pragma clang loop interleave_count(1)
    for (long j = 0; j < n; ++j)
      c[j] += a[k] * b[k][j] * r;
#endif
  return c[1];
}
static double one_call(long k, long n) {
  return kernel(A, B, C, n, D + k * 1e-9);
}
