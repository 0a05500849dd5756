// A hot stream, a hot reduction and a cold loop: the PGO tests' program
// (lit/tool/pgo*.test). argv[1]: repetitions.
#include <stdio.h>
#include <stdlib.h>

enum { N = 4096 };
static double A[N], B[N];

__attribute__((noinline)) void scale(int n, double k) {
  for (int i = 0; i < n; i++)
    A[i] = A[i] * k + 1.0;
}

__attribute__((noinline)) double dot(int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += A[i] * B[i];
  return s;
}

__attribute__((noinline)) int cold(int n) {
  int c = 0;
  for (int i = 0; i < n; i++)
    c += i % 7 == 3;
  return c;
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 400;
  for (int i = 0; i < N; i++) {
    A[i] = i * 0.5;
    B[i] = 1.0 / (i + 1);
  }
  double s = 0;
  for (int r = 0; r < reps; r++) {
    scale(N, 0.999);
    s += dot(N);
  }
  printf("sum %.6e cold %d\n", s, cold(argc + 9));
  return 0;
}
