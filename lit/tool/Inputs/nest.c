// A matrix product called 200 times: its inner loop's nest transformation
// candidates (lit/tool/pgo-nest.test).
#include <stdio.h>
enum { N = 64 };
static double A[N][N], B[N][N], C[N][N];
__attribute__((noinline)) void gemm(void) {
  for (int i = 0; i < N; i++)
    for (int k = 0; k < N; k++)
      for (int j = 0; j < N; j++)
        C[i][j] += A[i][k] * B[k][j];
}
int main(int argc, char **argv) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      A[i][j] = (i * j % 7) * 0.25;
      B[i][j] = (i + j) % 5 * 0.5;
    }
  for (int r = 0; r < 200; r++)
    gemm();
  double s = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      s += C[i][j];
  printf("%.17g\n", s);
  return 0;
}
