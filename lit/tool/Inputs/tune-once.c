// Kernels called once, as benchmarks call them (lit/tool/pgo-tune-once.test,
// docs/pgo.md): gemm's vectorised inner loop, called N*N times per run, and
// 2mm's reduction through memory (tmp may alias a and b: the sum is kept
// in tmp[i][j], not in a register). argv[1]: N (at most 128).
#include <stdio.h>
#include <stdlib.h>

enum { M = 128 };
static double A[M][M], B[M][M], C[M][M], T[M][M];

__attribute__((noinline)) void gemm(int n, double alpha, double beta,
                                    double c[M][M], double a[M][M],
                                    double b[M][M]) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++)
      c[i][j] *= beta;
    for (int k = 0; k < n; k++)
      for (int j = 0; j < n; j++)
        c[i][j] += alpha * a[i][k] * b[k][j];
  }
}

__attribute__((noinline)) void mm(int n, double alpha, double tmp[M][M],
                                  double a[M][M], double b[M][M]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      tmp[i][j] = 0.0;
      for (int k = 0; k < n; ++k)
        tmp[i][j] += alpha * a[i][k] * b[k][j];
    }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 96;
  if (n < 1 || n > M)
    return 2;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      A[i][j] = (double)((i * j + 1) % n) / n * 1.1;
      B[i][j] = (double)(i * (j + 1) % n) / (3 * n) + 1e-7 * j;
      C[i][j] = (double)((i * j + 2) % n) / n;
    }
  gemm(n, 1.5, 1.2, C, A, B);
  mm(n, 1.3, T, A, B);
  // Every bit of the results: a reordered sum shows.
  double s = 0, t = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      s += C[i][j] * (i + 1);
      t += T[i][j] * (j + 1);
    }
  printf("gemm %a mm %a\n", s, t);
  return 0;
}
