/*===- small_trip.c - Small trip count ---*- C -*-===*\
|* Part of decan's validation suite (bench/codelets).                      *|
\*===----------------------------------------------------------------------===*/
/* A 7-element dot product per block (NR's small fixed stencils): each loop
   call runs 7 iterations, far fewer cycles than a probe pair costs, so the
   measurement is dominated by probe and call overhead (CTRL close to REF,
   stability poor). Size N: the number of blocks. */
#define CODELET_NAME "small_trip"
#include "codelet.h"

enum { K = 7 };
static double *A, *Y, Xs[K];
static long N, Len, Off;

CODELET_NOINLINE void small_trip_kernel(const double *restrict a,
                                        const double *restrict x,
                                        double *restrict y, long nblocks,
                                        long k) {
  for (long b = 0; b < nblocks; ++b) {
    double t = 0;
    for (long j = 0; j < k; ++j)
      t += a[b * K + j] * x[j];
    y[b] = t;
  }
}

static volatile long Kv = K; /* trip count unknown to the compiler */
static void codelet_setup(long n) {
  N = n;
  Len = codelet_window_len(n, CODELET_CHUNK / 8);
  A = (double *)codelet_alloc(sizeof(double) * K * n);
  Y = (double *)codelet_alloc(sizeof(double) * n);
  for (long i = 0; i < K * n; ++i)
    A[i] = codelet_uniform(-1.0, 1.0);
  for (int j = 0; j < K; ++j)
    Xs[j] = codelet_uniform(-1.0, 1.0);
}
/* Windows of blocks. */
static void codelet_call(void) {
  long o = codelet_next(&Off, N, Len);
  small_trip_kernel(A + o * K, Xs, Y + o, Len, Kv);
}
static long codelet_loop_calls(void) { return Len; }
static double codelet_checksum(void) { return Y[0] + Y[N - 1]; }
