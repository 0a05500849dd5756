/* nest_dl1: a gemm-like nest whose inner loop is short (LEN elements, ~100
   cycles a call): c[j] += a[k] * b[k][j] over ROWS rows of a block that
   moves through a 64 MiB array from call to call (memory); fix: the same
   block every call (L1). Measured as one nest (`decan flags --nests`).
   Variant: DL1. */
#ifndef LEN
#define LEN 32
#endif
#ifndef ROWS
#define ROWS 32
#endif
#ifndef CALLS
#define CALLS 20000
#endif
#define BIG (8L << 20) /* doubles: 64 MiB */
#include "truth.h"
#include <stdlib.h>
static double A[ROWS], C[LEN], *Big;
static void setup(void) {
  Big = malloc(BIG * sizeof(double));
  for (long I = 0; I < BIG; ++I)
    Big[I] = 1 + I % 7;
  for (long K = 0; K < ROWS; ++K)
    A[K] = 1 + K % 3;
}
NOINLINE double kernel(const double *a, const double *b, double *c, long n) {
  for (long k = 0; k < ROWS; ++k)
    for (long j = 0; j < n; ++j)
      c[j] += a[k] * b[k * LEN + j];
  return c[1];
}
static double one_call(long k, long n) {
#ifndef FIX
  long Block = (k * 7919) % (BIG / (ROWS * LEN));
#else
  long Block = 0;
#endif
  return kernel(A, Big + Block * ROWS * LEN, C, n);
}
