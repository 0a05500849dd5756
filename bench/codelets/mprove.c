/*===- mprove.c - Matrix-vector residual (Numerical Recipes mprove) ---*- C
-*-===*\
|* Part of decan's validation suite (bench/codelets).                      *|
\*===----------------------------------------------------------------------===*/
/* NR mprove: r = A*x - b with a single-precision matrix accumulated in double
   precision. The inner loop is a dot product whose sum is one dependence
   chain (no reassociation in this build): FP-bound while the row is cached,
   the LS stream gains weight as the matrix leaves the caches (thesis
   Figures 4.3/4.4). Size N: the matrix is N x N floats. */
#define CODELET_NAME "mprove"
#include "codelet.h"

static float *A;
static double *X, *B, *R;
static long N, Rows, Off;

/* Rows [0, rows) of an n-column matrix. */
CODELET_NOINLINE void mprove_kernel(const float *restrict a,
                                    const double *restrict x,
                                    const double *restrict b,
                                    double *restrict r, long rows, long n) {
  for (long i = 0; i < rows; ++i) {
    double sdp = -b[i];
    const float *row = a + i * n;
    for (long j = 0; j < n; ++j)
      sdp += (double)row[j] * x[j];
    r[i] = sdp;
  }
}

static void codelet_setup(long n) {
  N = n;
  Rows = codelet_window_len(n, CODELET_CHUNK / n > 0 ? CODELET_CHUNK / n : 1);
  A = (float *)codelet_alloc(sizeof(float) * n * n);
  X = (double *)codelet_alloc(sizeof(double) * n);
  B = (double *)codelet_alloc(sizeof(double) * n);
  R = (double *)codelet_alloc(sizeof(double) * n);
  for (long i = 0; i < n * n; ++i)
    A[i] = (float)codelet_uniform(-1.0, 1.0);
  for (long i = 0; i < n; ++i) {
    X[i] = codelet_uniform(-1.0, 1.0);
    B[i] = codelet_uniform(-1.0, 1.0);
  }
}
/* Windows of rows. */
static void codelet_call(void) {
  long o = codelet_next(&Off, N, Rows);
  mprove_kernel(A + o * N, X, B + o, R + o, Rows, N);
}
static long codelet_loop_calls(void) { return Rows; }
static double codelet_checksum(void) { return R[0] + R[N - 1]; }
