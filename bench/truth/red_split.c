/* red_split: s += x[i], one add chain (3-4 cycles an element, L1 data);
   fix: eight partial sums. Variant: NO_RED (decan run --extended). */
#ifndef LEN
#define LEN 1024
#endif
#ifndef CALLS
#define CALLS 60000
#endif
#include "truth.h"
static double X[LEN];
static void setup(void) {
  for (long I = 0; I < LEN; ++I)
    X[I] = I & 7;
}
NOINLINE double kernel(const double *x, long n) {
#ifndef FIX
  double s = 0;
  for (long i = 0; i < n; ++i)
    s += x[i];
  return s;
#else
  double s[8] = {0};
  for (long i = 0; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; ++j)
      s[j] += x[i + j];
  return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
#endif
}
static double one_call(long k, long n) { return kernel(X, n); }
