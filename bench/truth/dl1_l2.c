/* dl1_l2: y[i] = a[i] * b[i] over slices of two 128 KiB arrays (L2);
   fix: the same 2 x 4 KiB slices every call (L1). Variant: DL1. */
#ifndef LEN
#define LEN 512
#endif
#ifndef CALLS
#define CALLS 200000
#endif
#define BIG (16L << 10)
#include "truth.h"
static double A[BIG], B[BIG], Y[LEN];
static void setup(void) {
  for (long I = 0; I < BIG; ++I) {
    A[I] = I & 7;
    B[I] = I & 3;
  }
}
NOINLINE void kernel(double *restrict y, const double *restrict a,
                     const double *restrict b, long n) {
  for (long i = 0; i < n; ++i)
    y[i] = a[i] * b[i];
}
static double one_call(long k, long n) {
#ifndef FIX
  long Off = (k * LEN) % BIG;
#else
  long Off = 0;
#endif
  kernel(Y, A + Off, B + Off, n);
  return Y[k & (LEN - 1)];
}
