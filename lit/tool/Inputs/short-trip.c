// A loop of 3 iterations per call, called 400 000 times: what the
// vectoriser plans for when it does not know (lit/tool/pgo-apply.test).
#include <stdio.h>
enum { N = 1 << 16 };
static float X[N], Y[N];
__attribute__((noinline)) void axpy(float *restrict y, const float *restrict x,
                                    float a, int n) {
  for (int i = 0; i < n; i++)
    y[i] += a * x[i];
}
int main(int argc, char **argv) {
  int n = argc + 2;
  for (int i = 0; i < N; i++) {
    X[i] = i * 0.001f;
    Y[i] = 1;
  }
  for (int r = 0; r < 400000; r++)
    axpy(Y + (r & 4095) * 8, X + (r & 2047), 0.5f, n);
  float s = 0;
  for (int i = 0; i < N; i++)
    s += Y[i];
  printf("%f\n", s);
  return 0;
}
