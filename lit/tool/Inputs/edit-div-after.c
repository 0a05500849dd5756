// compare-edit.test, after the edit: the reciprocal hoisted above the
// loop, which moved it and the loops after it two lines down. argv[1]: calls.
#include <stdio.h>
#include <stdlib.h>

enum { N = 1024 };
static double A[N], B[N], C[N];

__attribute__((noinline)) void init(int n) {
  for (int i = 0; i < n; i++) {
    A[i] = i * 0.25 + 1.0;
    B[i] = 0.5 * i;
  }
}

__attribute__((noinline)) void kernel(int n, double k) {
  // The reciprocal, once per call.
  double r = 1.0 / k;
  for (int i = 0; i < n; i++)
    C[i] = A[i] * r + B[i] * r;
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 4000;
  init(N);
  double s = 0;
  for (int r = 0; r < reps; r++) {
    kernel(N, 3.0 + (r & 1));
    s += C[r % N];
  }
  printf("sum %.6e\n", s);
  return 0;
}
