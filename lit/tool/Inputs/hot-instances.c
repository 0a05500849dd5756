// One source loop inlined twice: into hot, called argv[1] times, and into
// cold, called once (lit/tool/hot-instances.test).
#include <stdio.h>
#include <stdlib.h>

enum { N = 4096 };
static double A[N], B[N];

static inline double squares(const double *a, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * a[i];
  return s;
}

__attribute__((noinline)) double hot(int n) { return squares(A, n); }
__attribute__((noinline)) double cold(int n) { return squares(B, n) + 1; }

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 400;
  for (int i = 0; i < N; i++) {
    A[i] = i * 0.5;
    B[i] = 1.0 / (i + 1);
  }
  double s = 0;
  for (int r = 0; r < reps; r++) {
    A[r % N] += 1; // hot reads new data: its calls are not hoisted
    s += hot(N);
  }
  printf("sum %.6e cold %.6e\n", s, cold(N));
  return 0;
}
