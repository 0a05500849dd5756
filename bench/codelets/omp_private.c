/*===- omp_private.c - Threads writing their own lines ---*- C -*-===*\
|* Part of decan's validation suite (bench/codelets).                      *|
\*===----------------------------------------------------------------------===*/
/* omp_falseshare.c's work, but thread t writes its own contiguous block
   (out[t*n + i]): no line is written by two threads, so turning the stores
   into loads (S2L) gains little while the data are cached. */
#define CODELET_NAME "omp_private"
#include "codelet.h"
#include <omp.h>

static double *In, *Out;
static long N;

CODELET_NOINLINE void omp_private_kernel(double *restrict out,
                                         const double *restrict in, double s,
                                         long n) {
#pragma omp parallel
  {
    long t = omp_get_thread_num();
    for (long i = 0; i < n; ++i)
      out[t * n + i] = in[i] * s;
  }
}

static void codelet_setup(long n) {
  N = n;
  In = (double *)codelet_alloc(sizeof(double) * n);
  Out = (double *)codelet_alloc(sizeof(double) * n * omp_get_max_threads());
  for (long i = 0; i < n; ++i)
    In[i] = codelet_uniform(1.0, 2.0);
}
static void codelet_call(void) { omp_private_kernel(Out, In, 0.5, N); }
static long codelet_loop_calls(void) { return omp_get_max_threads(); }
static double codelet_checksum(void) { return Out[0] + Out[N - 1]; }
