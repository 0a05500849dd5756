// Prints the FP exception flags at the start of main, after its loops, and
// at exit: under decan run they must read as when the program runs alone.
#include <fenv.h>
#include <stdio.h>
#include <stdlib.h>

static void show(const char *When) {
  int F = fetestexcept(FE_ALL_EXCEPT);
  printf("%s: flags 0x%x%s%s%s\n", When, F, F & FE_INEXACT ? " inexact" : "",
         F & FE_UNDERFLOW ? " underflow" : "", F & FE_DIVBYZERO ? " divbyzero" : "");
}
static void atEnd(void) { show("exit"); }

__attribute__((noinline)) double scale(double *a, int n, double f) {
  double s = 0;
  for (int i = 0; i < n; ++i) {
    a[i] *= f;
    s += a[i];
  }
  return s;
}

int main(void) {
  show("main");
  atexit(atEnd);
  static double a[256];
  double t = 0;
  for (int r = 0; r < 80; ++r) {
    for (int i = 0; i < 256; ++i)
      a[i] = 0x1p-1000 * (i + 1);
    // Denormal results: underflow and inexact, and values FTZ would flush.
    t += scale(a, 256, 0x1.5555555555555p-62);
  }
  printf("sum %a\n", t);
  show("loops");
  return 0;
}
