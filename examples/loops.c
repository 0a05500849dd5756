//===- loops.c - decan's example: three loops, three bottlenecks ----------===//
//
// Part of decan. Built by scripts/demo.sh with $(decan flags) and measured
// with `decan run`. Each kernel's innermost loop has a different character:
//
//   divide  - three divisions per element on data that other loops evict
//             from the caches between calls: the divider still bounds it
//             (NO_DIV saturation low, FP-bound);
//   stream  - the triad a[i] = b[i] + s * c[i] on arrays far larger than the
//             caches: memory bandwidth bounds it (LS saturation near 1,
//             DL1 saturation low, highest potential gain);
//   reduce  - s += x[i] * x[i] on L2-resident data: the loop-carried
//             addition chain bounds it (unsaturated streams).
//
// It runs about a second; the checksum makes its output reproducible.
//
//===----------------------------------------------------------------------===//

#include <stdio.h>
#include <stdlib.h>

enum {
  DivN = 4096,       // 3 x 32 KiB
  StreamN = 1 << 21, // 3 x 16 MiB: memory
  ReduceN = 1 << 15, // 256 KiB: L2
  Calls = 500        // 31 samples of each of the 7 default variants (a
                     // slot: the variant and a REF call), plus warm-up
};

__attribute__((noinline)) static void divide(double *restrict a,
                                             const double *restrict b,
                                             const double *restrict c, int n) {
  for (int i = 0; i < n; ++i)
    a[i] = (b[i] / c[i] + c[i] / b[i]) / (b[i] + c[i]);
}

__attribute__((noinline)) static void stream(double *restrict a,
                                             const double *restrict b,
                                             const double *restrict c, double s,
                                             int n) {
  for (int i = 0; i < n; ++i)
    a[i] = b[i] + s * c[i];
}

__attribute__((noinline)) static double reduce(const double *restrict x,
                                               int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += x[i] * x[i];
  return s;
}

static double *array(int n, double first, double step) {
  double *p = malloc(sizeof(double) * (size_t)n);
  if (!p) {
    perror("malloc");
    exit(1);
  }
  for (int i = 0; i < n; ++i)
    p[i] = first + step * (i % 1000);
  return p;
}

int main(void) {
  double *da = array(DivN, 0, 0), *db = array(DivN, 1, 0.5),
         *dc = array(DivN, 3, 0.25);
  double *sa = array(StreamN, 0, 0), *sb = array(StreamN, 1, 1),
         *sc = array(StreamN, 2, 0.5);
  double *x = array(ReduceN, 0.5, 0.001);
  double check = 0;
  for (int r = 0; r < Calls; ++r) {
    divide(da, db, dc, DivN);
    stream(sa, sb, sc, 1.0 + r * 1e-3, StreamN);
    check += reduce(x, ReduceN) + da[r] + sa[r];
  }
  printf("checksum %.6e\n", check);
  return 0;
}
