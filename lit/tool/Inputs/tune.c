// Three kernels for decan tune (lit/tool/pgo-tune.test, docs/pgo.md): an
// integer reduction, a short-trip loop and a stream. argv[1]: repetitions.
#include <stdio.h>
#include <stdlib.h>

enum { N = 1 << 12, S = 1 << 18 };
static int V[N];
static float X[N], Y[N];
static float A[S];

__attribute__((noinline)) long sum(const int *v, int n) {
  long s = 0;
  for (int i = 0; i < n; i++)
    s += v[i] * 3 + (v[i] >> 2);
  return s;
}

__attribute__((noinline)) void axpy(float *restrict y, const float *restrict x,
                                    float a, int n) {
  for (int i = 0; i < n; i++)
    y[i] += a * x[i];
}

__attribute__((noinline)) void scale(float *a, int n, float k) {
  for (int i = 0; i < n; i++)
    a[i] = a[i] * k + 1.0f;
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 200;
  for (int i = 0; i < N; i++) {
    V[i] = i * 7 % 1000;
    X[i] = i * 0.001f;
    Y[i] = 1;
  }
  for (int i = 0; i < S; i++)
    A[i] = i % 100;
  long s = 0;
  int short_n = 5 + (argc > 2);
  for (int r = 0; r < reps; r++) {
    // V changes every repetition: the calls cannot be hoisted or merged.
    V[r & (N - 1)] += 1;
    for (int k = 0; k < 8; k++)
      s += sum(V + k, N - 8);
    for (int k = 0; k < 512; k++)
      axpy(Y + ((r * 64 + k) & 1023) * 4, X + (k & 511), 0.5f, short_n);
    scale(A, S, 0.999f);
  }
  float t = 0;
  for (int i = 0; i < N; i++)
    t += Y[i];
  printf("sum %ld y %.3f a %.3f\n", s, t, A[12345]);
  return 0;
}
