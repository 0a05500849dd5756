// axpy called with 16 and with 160 iterations, in turn: no one trip count
// stands for its calls (lit/tool/pgo-apply.test).
#include <stdio.h>
enum { N = 1 << 16 };
static float X[N], Y[N];
__attribute__((noinline)) void axpy(float *restrict y, const float *restrict x,
                                    float a, int n) {
  for (int i = 0; i < n; i++)
    y[i] += a * x[i];
}
int main(int argc, char **argv) {
  for (int i = 0; i < N; i++) {
    X[i] = i * 0.001f;
    Y[i] = 1;
  }
  for (int r = 0; r < 200000; r++)
    axpy(Y + (r & 255) * 160, X + (r & 2047), 0.5f, r & 1 ? 160 : 15 + argc);
  float s = 0;
  for (int i = 0; i < N; i++)
    s += Y[i];
  printf("%f\n", s);
  return 0;
}
