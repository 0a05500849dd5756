/* A gemm-like kernel whose inner loop is short (32 elements a call) inside
   a 2-level nest: run-nests.test measures the nest as one loop. */
#include <stdio.h>
#define N 32
static double A[N][N], B[N][N], C[N][N];

__attribute__((noinline)) void kern(int n) {
  for (int i = 0; i < n; i++)
    for (int k = 0; k < n; k++)
      for (int j = 0; j < n; j++)
        C[i][j] += A[i][k] * B[k][j] / 3.0;
}

int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      A[i][j] = 1 + (i + j) % 5;
      B[i][j] = 1 + (i * j) % 3;
    }
  for (int r = 0; r < 600; r++)
    kern(N);
  printf("%.6g\n", C[3][5]);
  return 0;
}
