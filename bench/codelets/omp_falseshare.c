/*===- omp_falseshare.c - Threads writing one cache line ---*- C -*-===*\
|* Part of decan's validation suite (bench/codelets).                      *|
\*===----------------------------------------------------------------------===*/
/* Each thread writes every T-th element of one array (out[i*T + t]): the
   threads write neighbouring elements of the same cache lines, which move
   between the cores at every store (false sharing, thesis 5.12). S2L keeps
   the reads of those lines and drops the writes: with every thread running
   S2L (replace mode: the whole program runs the variant, as in the thesis)
   the lines stay shared and the loop runs much faster. omp_private.c is
   the same work on lines each thread owns. */
#define CODELET_NAME "omp_falseshare"
#include "codelet.h"
#include <omp.h>

static double *In, *Out;
static long N;

CODELET_NOINLINE void omp_falseshare_kernel(double *restrict out,
                                            const double *restrict in, double s,
                                            long n) {
#pragma omp parallel
  {
    long t = omp_get_thread_num(), T = omp_get_num_threads();
    for (long i = 0; i < n; ++i)
      out[i * T + t] = in[i] * s;
  }
}

static void codelet_setup(long n) {
  N = n;
  In = (double *)codelet_alloc(sizeof(double) * n);
  Out = (double *)codelet_alloc(sizeof(double) * n * omp_get_max_threads());
  for (long i = 0; i < n; ++i)
    In[i] = codelet_uniform(1.0, 2.0);
}
static void codelet_call(void) { omp_falseshare_kernel(Out, In, 0.5, N); }
/* One loop call per thread. */
static long codelet_loop_calls(void) { return omp_get_max_threads(); }
static double codelet_checksum(void) { return Out[0] + Out[N - 1]; }
