#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <execinfo.h>

// A call inside an innermost loop that takes a backtrace (once): the
// frames of the loop's function and of main must be in it.
static int Seen;

__attribute__((noinline)) double step(double x, int i) {
  if (i == 500 && !Seen++) {
    void *B[64];
    int N = backtrace(B, 64);
    char **S = backtrace_symbols(B, N);
    for (int K = 0; K < N && S; ++K)
      if (const char *F = strchr(S[K], '('))
        if (!strncmp(F, "(_Z3runi+", 9) || !strncmp(F, "(main+", 6))
          printf("frame %.*s\n", (int)strcspn(F + 1, "+"), F + 1);
    free(S);
  }
  return x * 1.0001 + i;
}

__attribute__((noinline)) double run(int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s = step(s, i);
  return s;
}

int main() {
  double s = 0;
  for (int r = 0; r < 3; ++r)
    s += run(1000);
  printf("sum %g\n", s);
  return 0;
}
