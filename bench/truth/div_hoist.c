/* div_hoist: a sum of x[i] / d, d loop-invariant; fix: the reciprocal
   hoisted (s += x[i] * r). Data in L1 (8 KiB). Variant: NO_DIV. */
#ifndef LEN
#define LEN 1024
#endif
#ifndef CALLS
#define CALLS 60000
#endif
#include "truth.h"
static double X[LEN], D = 1.0000003;
static void setup(void) {
  for (long I = 0; I < LEN; ++I)
    X[I] = 1 + I % 7;
}
NOINLINE double kernel(const double *x, long n, double d) {
  double s = 0;
#ifndef FIX
  for (long i = 0; i < n; ++i)
    s += x[i] / d;
#else
  double r = 1 / d;
  for (long i = 0; i < n; ++i)
    s += x[i] * r;
#endif
  return s;
}
static double one_call(long k, long n) { return kernel(X, n, D + k * 1e-9); }
