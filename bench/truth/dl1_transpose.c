/* dl1_transpose: a column sum of a 2048 x 2048 matrix (stride 16 KiB, one
   miss per element); fix: the transposed matrix, summed along a row. Same
   count of additions. Variant: DL1. */
#include <stdlib.h>
#ifndef LEN
#define LEN 2048
#endif
#ifndef CALLS
#define CALLS 6000
#endif
#include "truth.h"
static double *M;
static void setup(void) {
  M = malloc((long)LEN * LEN * sizeof(double));
  for (long I = 0; I < (long)LEN * LEN; ++I)
    M[I] = I & 3;
}
NOINLINE double kernel(const double *m, long stride, long n) {
  double s = 0;
  for (long i = 0; i < n; ++i)
    s += m[i * stride];
  return s;
}
static double one_call(long k, long n) {
  long J = k % LEN;
#ifndef FIX
  return kernel(M + J, LEN, n);
#else
  return kernel(M + J * LEN, 1, n);
#endif
}
