/* poly_ls: y[i] = a degree-12 polynomial of x[i] (vectorised, FP-bound,
   L1 data); fix: y[i] = x[i] + 0.25, the loads and stores with one add (a
   plain copy would become memcpy). Variant: LS (which also turns the store
   into a load). */
#ifndef LEN
#define LEN 1024
#endif
#ifndef CALLS
#define CALLS 40000
#endif
#include "truth.h"
static double X[LEN], Y[LEN];
static void setup(void) {
  for (long I = 0; I < LEN; ++I)
    X[I] = (I % 17) * 0.01;
}
NOINLINE void kernel(double *restrict y, const double *restrict x, long n) {
  for (long i = 0; i < n; ++i) {
    double v = x[i];
#ifndef FIX
    double p = 0.5;
    for (int c = 0; c < 12; ++c)
      p = p * v + 0.25;
    y[i] = p;
#else
    y[i] = v + 0.25;
#endif
  }
}
static double one_call(long k, long n) {
  kernel(Y, X, n);
  return Y[k & (LEN - 1)];
}
