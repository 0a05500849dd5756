/* A loop that first-touches fresh memory on every call (issue 26): each
   call writes a new anonymous mapping, so whichever copy touches it (REF,
   LS) pays the page faults and the others (FP, CTRL) do not. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#define N (1 << 14)
__attribute__((noinline)) double fill(double *p, int n, double x) {
  for (int i = 0; i < n; i++)
    p[i] = x * i;
  return p[n / 2];
}
int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 400;
  double s = 0;
  for (int r = 0; r < reps; r++) {
    double *p = mmap(0, N * sizeof(double), PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
      return 1;
    s += fill(p, N, r);
    munmap(p, N * sizeof(double));
  }
  printf("%f\n", s);
  return 0;
}
