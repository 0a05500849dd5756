// Driver for run-variants.c: calls every variant of divred once and checks
// that only REF writes program memory and that REF computes the loop.
#include <stdio.h>
#include <string.h>

typedef double vd __attribute__((vector_size(VB), aligned(8)));
#define N 256
#define DECL(V)                                                                \
  void V(const double *, const double *, double *, long, vd *)                 \
      __asm__("divred.decan.L0." #V);
DECL(REF)
DECL(LS)
DECL(FP)
DECL(NO_DIV)
DECL(DL1)
DECL(CTRL)

int main(void) {
  static double a[N], b[N], c[N];
  void (*fns[])(const double *, const double *, double *, long, vd *) = {
      REF, LS, FP, NO_DIV, DL1, CTRL};
  const char *names[] = {"REF", "LS", "FP", "NO_DIV", "DL1", "CTRL"};
  int bad = 0;
  for (int v = 0; v < 6; ++v) {
    for (int i = 0; i < N; ++i) {
      a[i] = i + 1;
      b[i] = 2;
      c[i] = -1;
    }
    vd out;
    memset(&out, 0, sizeof out);
    fns[v](a, b, c, N, &out);
    int wrote = 0;
    for (int i = 0; i < N; ++i)
      wrote |= c[i] != -1;
    if (v == 0) {
      double s = 0;
      for (int j = 0; j < VB / 8; ++j)
        s += out[j];
      int ok = c[N - 1] == N / 2.0 && s == (N * (N + 1) / 2) / 2.0;
      printf("%s %s\n", names[v], ok ? "computes" : "WRONG");
      bad |= !ok;
    } else {
      printf("%s %s\n", names[v], wrote ? "WROTE-PROGRAM-MEMORY" : "clean");
      bad |= wrote;
    }
  }
  return bad;
}
