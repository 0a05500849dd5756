// GROUPING end to end (lit/tool/run-groups.test): one loop, two arrays.
#include <stdio.h>
#include <stdlib.h>
#define NOINLINE __attribute__((noinline))
#define W 2048 // elements per call
// Two arrays, one loop: `big` streams from memory (64 MiB walked once per
// pass), `small` (16 KiB) is the same window at every call: L1-resident.
NOINLINE double kern(const double *restrict big, const double *restrict small,
                     long n) {
  double s = 0;
  for (long i = 0; i < n; ++i)
    s += big[i] * small[i];
  return s;
}
int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : (1L << 23);
  int passes = argc > 2 ? atoi(argv[2]) : 4;
  double *big = malloc(sizeof(double) * n), *small = malloc(sizeof(double) * W);
  for (long i = 0; i < n; ++i) big[i] = 1.0 + (i % 7);
  for (int i = 0; i < W; ++i) small[i] = 0.5;
  double t = 0;
  for (int c = 0; c < passes; ++c)
    for (long o = 0; o + W <= n; o += W)
      t += kern(big + o, small, W);
  printf("%f\n", t);
  return 0;
}
