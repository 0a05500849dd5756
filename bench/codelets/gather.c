/*===- gather.c - Indirect gather ---*- C -*-===*\
|* Part of decan's validation suite (bench/codelets).                      *|
\*===----------------------------------------------------------------------===*/
/* y[i] += x[idx[i]] * w: random indices over x, so in RAM every access to x
   misses (DL1 gains most); in L1 the loop is bound by its loads. */
#define CODELET_NAME "gather"
#include "codelet.h"

static double *X, *Y;
static int *Idx;
static long N, Len, Off;

CODELET_NOINLINE void gather_kernel(const double *restrict x,
                                    const int *restrict idx, double *restrict y,
                                    double w, long n) {
  for (long i = 0; i < n; ++i)
    y[i] += x[idx[i]] * w;
}

static void codelet_setup(long n) {
  N = n;
  Len = codelet_window_len(n, CODELET_CHUNK);
  X = (double *)codelet_alloc(sizeof(double) * n);
  Y = (double *)codelet_alloc(sizeof(double) * n);
  Idx = (int *)codelet_alloc(sizeof(int) * n);
  for (long i = 0; i < n; ++i) {
    X[i] = codelet_uniform(1.0, 2.0);
    Idx[i] = (int)(codelet_rand() % (uint64_t)n);
  }
}
/* w alternates sign so y stays bounded whatever the number of calls. */
static double W = 0.5;
/* Windows over idx and y; the gathered x is the whole array. */
static void codelet_call(void) {
  long o = codelet_next(&Off, N, Len);
  gather_kernel(X, Idx + o, Y + o, W, Len);
  W = -W;
}
static long codelet_loop_calls(void) { return 1; }
static double codelet_checksum(void) { return Y[0] + Y[N - 1]; }
