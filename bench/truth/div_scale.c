/* div_scale: y[i] = x[i] / norm, vectorised divisions with a store; fix: a
   multiply by the hoisted reciprocal. Data in L1 (2 x 8 KiB). Variant:
   NO_DIV (which also turns the store into a load). */
#ifndef LEN
#define LEN 1024
#endif
#ifndef CALLS
#define CALLS 100000
#endif
#include "truth.h"
static double X[LEN], Y[LEN];
static void setup(void) {
  for (long I = 0; I < LEN; ++I)
    X[I] = 1 + I % 5;
}
NOINLINE void kernel(double *restrict y, const double *restrict x, long n,
                     double norm) {
#ifndef FIX
  for (long i = 0; i < n; ++i)
    y[i] = x[i] / norm;
#else
  double r = 1 / norm;
  for (long i = 0; i < n; ++i)
    y[i] = x[i] * r;
#endif
}
static double one_call(long k, long n) {
  kernel(Y, X, n, 3 + (k & 1));
  return Y[k & (LEN - 1)];
}
