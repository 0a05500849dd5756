// Values of the caller live across a measured loop: vectors (two XMM
// registers each, or one YMM register with -mavx2) and integers computed
// before the loop and used after it. The measure function the loop's stub
// calls is preserve_allcc: none of them may change, whichever copy ran.
#include <stdio.h>

typedef double v4 __attribute__((vector_size(32)));

__attribute__((noinline)) double around(double *a, int n, v4 x, long m) {
  v4 k0 = x * 1.5, k1 = x + 2.0, k2 = x * x, k3 = x - 3.0;
  v4 k4 = k0 * k1, k5 = k2 + k3, k6 = k0 - k2, k7 = k1 * k3;
  long j0 = m * 3, j1 = m ^ 0x55, j2 = m + 7, j3 = m * m, j4 = m - 11;
  double s = 0;
  for (int i = 0; i < n; ++i) {
    s += a[i];
    a[i] = a[i] * 0.5 + 1.0;
  }
  v4 t = k0 + k1 * k2 - k3 + k4 * k5 - k6 + k7;
  return s + t[0] + t[1] * 2 + t[2] * 3 + t[3] * 4 +
         (double)(j0 + j1 * 2 + j2 * 3 + j3 * 4 + j4 * 5);
}

int main(void) {
  static double a[64];
  double total = 0;
  for (int i = 0; i < 64; ++i)
    a[i] = i * 0.25;
  for (int c = 0; c < 400; ++c) {
    v4 x = {c * 0.5, c * 0.25, -c * 1.0, c + 0.125};
    total += around(a, 64, x, c) / (c + 1);
    if (c % 100 == 0)
      printf("%d %.6f\n", c, total);
  }
  printf("total %.6f\n", total);
  return 0;
}
