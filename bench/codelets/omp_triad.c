/*===- omp_triad.c - OpenMP parallel-for triad ---*- C -*-===*\
|* Part of decan's validation suite (bench/codelets).                      *|
\*===----------------------------------------------------------------------===*/
/* The triad under `#pragma omp parallel for`: each thread runs its chunk of
   the same outlined loop and is measured separately (thesis 6.4.1). With two
   threads on two cores the RAM regime is LS-bound. */
#define CODELET_NAME "omp_triad"
#include "codelet.h"
#include <omp.h>

static double *A, *B, *C;
static long N, Len, Off;

CODELET_NOINLINE void omp_triad_kernel(double *restrict a,
                                       const double *restrict b,
                                       const double *restrict c, double s,
                                       long n) {
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i)
    a[i] = b[i] + s * c[i];
}

static void codelet_setup(long n) {
  N = n;
  Len = codelet_window_len(n, CODELET_CHUNK);
  A = (double *)codelet_alloc(sizeof(double) * n);
  B = (double *)codelet_alloc(sizeof(double) * n);
  C = (double *)codelet_alloc(sizeof(double) * n);
  for (long i = 0; i < n; ++i) {
    B[i] = codelet_uniform(1.0, 2.0);
    C[i] = codelet_uniform(1.0, 2.0);
  }
}
static void codelet_call(void) {
  long o = codelet_next(&Off, N, Len);
  omp_triad_kernel(A + o, B + o, C + o, 0.5, Len);
}
/* One loop call per thread, each measured separately. */
static long codelet_loop_calls(void) { return omp_get_max_threads(); }
static double codelet_checksum(void) { return A[0] + A[N - 1]; }
