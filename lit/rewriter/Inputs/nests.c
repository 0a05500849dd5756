// Loop nests for the rewriter's --nests (nests.test): `kern`, a gemm whose
// k and j loops are a 2-level nest with a short inner loop and a division
// (measured as one loop, kern:N0); `chains`, whose inner loop's test reads the links it
// follows (refused: a variant could change its trip counts); `scaled`,
// whose outer loop calls a function (refused: no call in a nest).
#include <stdio.h>
#include <stdlib.h>
#define N 32
static double A[N][N], B[N][N], C[N][N];

__attribute__((noinline)) void kern(int n) {
  for (int i = 0; i < n; i++)
    for (int k = 0; k < n; k++)
      for (int j = 0; j < n; j++)
        C[i][j] += A[i][k] * B[k][j] / 3.0;
}

__attribute__((noinline)) long chains(const int *Next, int n) {
  long T = 0;
  for (int i = 0; i < n; i++)
    for (int j = i; Next[j] >= 0; j = Next[j])
      T++;
  return T;
}

__attribute__((noinline)) double factor(int i) { return 1.0 + (i & 1) / 64.0; }

__attribute__((noinline)) void scaled(double *X, int n, int m) {
  for (int i = 0; i < n; i++) {
    double F = factor(i);
    for (int j = 0; j < m; j++)
      X[i * m + j] *= F;
  }
}

int main(int argc, char **argv) {
  int Reps = argc > 1 ? atoi(argv[1]) : 200;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      A[i][j] = 1 + (i + j) % 5;
      B[i][j] = 1 + (i * j) % 3;
    }
  int Next[16];
  for (int i = 0; i < 16; i++)
    Next[i] = i + 3 < 16 ? i + 3 : -1;
  static double X[64];
  for (int i = 0; i < 64; i++)
    X[i] = 1;
  long T = 0;
  for (int r = 0; r < Reps; r++) {
    kern(N);
    T += chains(Next, 16);
    if (r % 8 == 0)
      scaled(X, 8, 8);
  }
  printf("%.6g %ld %.6g\n", C[0][5], T, X[9]);
  return 0;
}
