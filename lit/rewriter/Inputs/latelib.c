// A shared library loop and a program that calls it until decan run's
// late pack for it is in the late directory (WAIT_PACK: the pack's file
// name pattern in DECAN_LATE_DIR), then a fixed amount of
// work it prints the checksum of: the output does not depend on when the
// pack arrived, and the loop is measured with its variants in the run.
#include <stdio.h>
#ifndef MAIN
double late_sum(const double *a, long n, double f) {
  double s = 0;
  for (long i = 0; i < n; ++i)
    s += a[i] * f + 1.0;
  return s;
}
#else
#include <glob.h>
#include <stdlib.h>
#include <time.h>
double late_sum(const double *a, long n, double f);
static int packThere(const char *Pattern) {
  glob_t G;
  int Found = glob(Pattern, 0, NULL, &G) == 0 && G.gl_pathc > 0;
  globfree(&G);
  return Found;
}
int main(void) {
  static double a[2048];
  for (int i = 0; i < 2048; ++i)
    a[i] = (i % 7) * 0.25;
  const char *Pack = getenv("WAIT_PACK"), *Dir = getenv("DECAN_LATE_DIR");
  char Wait[4096] = "";
  if (Pack && Dir)
    snprintf(Wait, sizeof(Wait), "%s/%s", Dir, Pack);
  volatile double Sink = 0;
  // At most 60 s: a pack that never comes fails the test, not the machine.
  time_t Start = time(NULL);
  while (*Wait && !packThere(Wait) && time(NULL) - Start < 60)
    for (int k = 0; k < 256; ++k)
      Sink += late_sum(a, 2048, 0.5);
  double t = 0;
  for (int r = 0; r < 20000; ++r)
    t += late_sum(a, 2048 - (r % 64), 0.5);
  printf("total=%.6f\n", t);
  return 0;
}
#endif
