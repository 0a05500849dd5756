/* div_table: s += a[i] / b[i] with b constant over calls; fix: a table of
   reciprocals built once outside the measured loop (s += a[i] * rb[i]).
   Data in L1 (3 x 4 KiB). Variant: NO_DIV (keeps b's load, as the fix). */
#ifndef LEN
#define LEN 512
#endif
#ifndef CALLS
#define CALLS 100000
#endif
#include "truth.h"
static double A[LEN], B[LEN], RB[LEN];
static void setup(void) {
  for (long I = 0; I < LEN; ++I) {
    A[I] = I % 11;
    B[I] = 1 + I % 13;
    RB[I] = 1 / B[I];
  }
}
NOINLINE double kernel(const double *a, const double *b, const double *rb,
                       long n) {
  double s = 0;
  for (long i = 0; i < n; ++i)
#ifndef FIX
    s += a[i] / b[i];
#else
    s += a[i] * rb[i];
#endif
  return s;
}
static double one_call(long k, long n) { return kernel(A, B, RB, n); }
