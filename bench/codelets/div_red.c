/*===- div_red.c - Division + reduction (thesis Algorithm 1) ---*- C -*-===*\
|* Part of decan's validation suite (bench/codelets).                      *|
\*===----------------------------------------------------------------------===*/
/* The thesis's Algorithm 1: 16 columns, each divided by a scalar and
   accumulated squared. The division cannot become a reciprocal multiply (it
   would change the numerics), so the build keeps -fno-reciprocal-math; the
   reduction may be reassociated so the loop vectorises as in the thesis. */
#define CODELET_NAME "div_red"
#include "codelet.h"

static double *A, s[16], scal = 1.0000001;
static long N, Len, Off;

/* 16 columns of leading dimension ld; the loop runs over n rows. */
CODELET_NOINLINE void div_red_kernel(double *restrict a, long ld, long n,
                                     double sc, double *restrict acc) {
  for (int i = 0; i < 16; ++i) {
    double t = acc[i];
    double *col = a + i * ld;
    for (long k = 0; k < n; ++k) {
      col[k] = col[k] / sc;
      t += col[k] * col[k];
    }
    acc[i] = t;
  }
}

static void codelet_setup(long n) {
  N = n;
  Len = codelet_window_len(n, CODELET_CHUNK / 16);
  A = (double *)codelet_alloc(sizeof(double) * 16 * n);
  for (long k = 0; k < 16 * n; ++k)
    A[k] = codelet_uniform(1.0, 2.0);
}
/* The divisor alternates around 1 so the values stay in [0.5, 4) whatever
   the number of calls (no drift towards denormals). */
static void codelet_call(void) {
  long o = codelet_next(&Off, N, Len);
  div_red_kernel(A + o, N, Len, scal, s);
  scal = 1.0 / scal;
}
static long codelet_loop_calls(void) { return 16; }
static double codelet_checksum(void) {
  double c = 0;
  for (int i = 0; i < 16; ++i)
    c += s[i];
  return c;
}
