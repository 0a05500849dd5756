/*===- tridag.c - First-order recurrence (Numerical Recipes tridag) ---*- C
-*-===*\
|* Part of decan's validation suite (bench/codelets).                      *|
\*===----------------------------------------------------------------------===*/
/* NR tridag's forward sweep: bet and u are carried from one iteration to the
   next through a division, so the loop is bound by the latency of that chain
   (NO_DIV and FP-bound), in every cache level: five streams of 8 bytes per
   ~20+ cycles never saturate memory bandwidth. */
#define CODELET_NAME "tridag"
#include "codelet.h"

static double *Av, *Bv, *Cv, *Rv, *U, *Gam;
static long N, Len, Off;

CODELET_NOINLINE void
tridag_kernel(const double *restrict a, const double *restrict b,
              const double *restrict c, const double *restrict r,
              double *restrict u, double *restrict gam, long n) {
  double bet = b[0];
  u[0] = r[0] / bet;
  for (long j = 1; j < n; ++j) {
    gam[j] = c[j - 1] / bet;
    bet = b[j] - a[j] * gam[j];
    u[j] = (r[j] - a[j] * u[j - 1]) / bet;
  }
}

static void codelet_setup(long n) {
  N = n;
  Len = codelet_window_len(n, CODELET_CHUNK);
  Av = (double *)codelet_alloc(sizeof(double) * n);
  Bv = (double *)codelet_alloc(sizeof(double) * n);
  Cv = (double *)codelet_alloc(sizeof(double) * n);
  Rv = (double *)codelet_alloc(sizeof(double) * n);
  U = (double *)codelet_alloc(sizeof(double) * n);
  Gam = (double *)codelet_alloc(sizeof(double) * n);
  /* Diagonally dominant: bet stays in [2, 4], u bounded. */
  for (long i = 0; i < n; ++i) {
    Av[i] = codelet_uniform(0.1, 0.5);
    Bv[i] = codelet_uniform(3.0, 4.0);
    Cv[i] = codelet_uniform(0.1, 0.5);
    Rv[i] = codelet_uniform(1.0, 2.0);
  }
}
/* Each window is an independent tridiagonal system. */
static void codelet_call(void) {
  long o = codelet_next(&Off, N, Len);
  tridag_kernel(Av + o, Bv + o, Cv + o, Rv + o, U + o, Gam + o, Len);
}
static long codelet_loop_calls(void) { return 1; }
static double codelet_checksum(void) { return U[0] + U[N - 1]; }
