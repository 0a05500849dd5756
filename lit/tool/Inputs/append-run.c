// A program with a side effect, as `xz FILE` has: each run appends one line
// to the file it is given, then spends its time in libloop.so.1's loop.
// `decan run --lib auto` must run it once.
#include <stdio.h>
double lib_scale_sum(const double *a, long n, double f);
int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s FILE\n", argv[0]);
    return 2;
  }
  FILE *F = fopen(argv[1], "a");
  if (!F || fprintf(F, "ran\n") < 0 || fclose(F) != 0) {
    perror(argv[1]);
    return 1;
  }
  static double a[2048];
  double t = 0;
  for (int r = 0; r < 64; ++r) {
    for (int i = 0; i < 2048; ++i)
      a[i] = (i % 7) * 0.25 + r;
    t += lib_scale_sum(a, 2048 - r, 0.5);
  }
  printf("total=%.6f\n", t);
  return 0;
}
