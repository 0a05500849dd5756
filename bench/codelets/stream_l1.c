/*===- stream_l1.c - One streaming array, one L1-resident array ---*- C -*-===*\
|* Part of decan's validation suite (bench/codelets).                      *|
\*===----------------------------------------------------------------------===*/
/* s += big[i] * small[i]: `big` walks the whole working set (one window per
   call), `small` is the same 16 KiB window at every call, so it stays in
   L1 whatever the size. GROUPING (issue 16) must find two groups and say
   that `big` costs and `small` does not. Reassociation lets the loop
   vectorise with several accumulators: the reduction chain is no bound. */
#define CODELET_NAME "stream_l1"
#include "codelet.h"

#define W 2048 /* elements of `small`, and per call */
static double *Big, *Small, Sum;
static long N, Off;

CODELET_NOINLINE double stream_l1_kernel(const double *restrict big,
                                         const double *restrict small, long n) {
  double s = 0;
  for (long i = 0; i < n; ++i)
    s += big[i] * small[i];
  return s;
}

static void codelet_setup(long n) {
  N = n < W ? W : n;
  Big = (double *)codelet_alloc(sizeof(double) * N);
  Small = (double *)codelet_alloc(sizeof(double) * W);
  for (long i = 0; i < N; ++i)
    Big[i] = codelet_uniform(1.0, 2.0);
  for (long i = 0; i < W; ++i)
    Small[i] = codelet_uniform(1.0, 2.0);
}
static void codelet_call(void) {
  long o = codelet_next(&Off, N, W);
  Sum += stream_l1_kernel(Big + o, Small, W);
}
static long codelet_loop_calls(void) { return 1; }
static double codelet_checksum(void) { return Sum; }
