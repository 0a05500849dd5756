// A loop whose third call reads through a null pointer: under decan every
// call runs in a measured copy, so the crash is in a variant's copy.
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) long walk(const long *p, long n) {
  long s = 0;
  for (long i = 0; i < n; ++i)
    s += p[i] * 3 + 1;
  return s;
}
int main(int argc, char **argv) {
  static long a[4096];
  long t = 0;
  for (int r = 0; r < 5; ++r) {
    const long *p = r == 2 + (argc > 1) ? NULL : a;
    t += walk(p, 4096);
  }
  printf("%ld\n", t);
  return 0;
}
