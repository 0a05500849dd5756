/*===- early_exit.c - Loop with a data-dependent exit ---*- C -*-===*\
|* Part of decan's validation suite (bench/codelets).                      *|
\*===----------------------------------------------------------------------===*/
/* Linear search with a running sum: the exit depends on the data (the first
   element above a threshold, placed at 7/8 of the array), so the loop has two
   exits and its trip count is only known at run time. Sum and compare form
   the CTRL slice together with the induction variable. */
#define CODELET_NAME "early_exit"
#include "codelet.h"

static double *A, Res;
static long N, Found, Len, Off;

CODELET_NOINLINE long early_exit_kernel(const double *restrict a, long n,
                                        double key, double *restrict sum) {
  double s = 0;
  long i;
  for (i = 0; i < n; ++i) {
    if (a[i] > key)
      break;
    s += a[i];
  }
  *sum = s;
  return i;
}

static void codelet_setup(long n) {
  N = n;
  Len = codelet_window_len(n, CODELET_CHUNK);
  A = (double *)codelet_alloc(sizeof(double) * n);
  for (long i = 0; i < n; ++i)
    A[i] = codelet_uniform(0.0, 1.0);
  /* One exit marker at 7/8 of every window. */
  for (long w = 0; w + Len <= n; w += Len)
    A[w + Len - Len / 8 - 1] = 10.0;
}
static void codelet_call(void) {
  double s;
  long o = codelet_next(&Off, N, Len);
  Found += early_exit_kernel(A + o, Len, 5.0, &s);
  Res += s * 1e-9;
}
static double codelet_checksum(void) { return Res + (double)Found; }
static long codelet_loop_calls(void) { return 1; }
