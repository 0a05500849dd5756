// A host that loads a library with dlopen, by the path or name given (as
// Python loads an extension module), and calls its kernel.
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  if (argc != 2 && argc != 3) {
    fprintf(stderr, "usage: %s LIBRARY [ROUNDS]\n", argv[0]);
    return 2;
  }
  int Rounds = argc == 3 ? atoi(argv[2]) : 64;
  void *H = dlopen(argv[1], RTLD_NOW);
  if (!H) {
    fprintf(stderr, "dlopen: %s\n", dlerror());
    return 1;
  }
  double (*Kernel)(const double *, long, double) =
      (double (*)(const double *, long, double))dlsym(H, "lib_scale_sum");
  static double a[2048];
  double t = 0;
  for (int r = 0; r < Rounds; ++r) {
    for (int i = 0; i < 2048; ++i)
      a[i] = (i % 7) * 0.25 + r;
    // Most of the time is the library's (the hint's test needs well under
    // half in the host's own loop, on any machine).
    for (int k = 0; k < 4; ++k)
      t += Kernel(a, 2048 - r % 64, 0.5 + k);
  }
  printf("total=%.6f\n", t);
  return 0;
}
