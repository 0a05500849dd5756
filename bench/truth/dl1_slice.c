/* dl1_slice: a sum over 16 KiB slices that move through a 64 MiB array
   (memory); fix: every call sums the same slice (L1-resident). The loop's
   code is the same in both. Variant: DL1. */
#include <stdlib.h>
#ifndef LEN
#define LEN 2048
#endif
#ifndef CALLS
#define CALLS 20000
#endif
#define BIG (8L << 20)
#include "truth.h"
static double *X;
static void setup(void) {
  X = malloc(BIG * sizeof(double));
  for (long I = 0; I < BIG; ++I)
    X[I] = I & 3;
}
NOINLINE double kernel(const double *x, long n) {
  double s = 0;
  for (long i = 0; i < n; ++i)
    s += x[i];
  return s;
}
static double one_call(long k, long n) {
#ifndef FIX
  return kernel(X + (k * LEN) % BIG, n);
#else
  return kernel(X, n);
#endif
}
