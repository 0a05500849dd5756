// A loop whose exit reads memory the loop writes through another pointer,
// aliased only at run time (issue 25): `while (*q < n) *p += 1` called with
// p == q. REF ends; a variant, which never writes program memory, would
// not. Prints what a plain build prints.
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void bump_until(int *p, const int *q, int n) {
  while (*q < n)
    *p += 1;
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 2000;
  long total = 0;
  for (int r = 0; r < reps; ++r) {
    int x = r % 7;
    bump_until(&x, &x, 1000 + r % 16);
    total += x;
  }
  printf("total %ld\n", total);
  return 0;
}
