/* stream_drop: s += a[i] * b[i] + c[i] over three 16 MiB arrays, slices
   moving through them (memory-bound); fix: the c stream dropped. Variant:
   NO_G of c's access group (decan run --groups). */
#include <stdlib.h>
#ifndef LEN
#define LEN 4096
#endif
#ifndef CALLS
#define CALLS 6000
#endif
#define BIG (2L << 20)
#include "truth.h"
static double *A, *B, *C;
static void setup(void) {
  A = malloc(BIG * sizeof(double));
  B = malloc(BIG * sizeof(double));
  C = malloc(BIG * sizeof(double));
  for (long I = 0; I < BIG; ++I)
    A[I] = B[I] = C[I] = I & 3;
}
NOINLINE double kernel(const double *a, const double *b, const double *c,
                       long n) {
  double s = 0;
  for (long i = 0; i < n; ++i)
#ifndef FIX
    s += a[i] * b[i] + c[i];
#else
    s += a[i] * b[i];
#endif
  return s;
}
static double one_call(long k, long n) {
  long Off = (k * LEN) % BIG;
  return kernel(A + Off, B + Off, C + Off, n);
}
