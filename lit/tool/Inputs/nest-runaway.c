// A loop nest whose inner loop test reads memory the nest writes through
// another pointer, aliased only at run time (issue 25's bump_until, one
// level down): called with p == q, REF ends; a variant, which never writes
// program memory, would spin in the inner loop. Prints what a plain build
// prints.
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void bump_rows(int *p, const int *q, int rows,
                                         int n) {
  for (int r = 0; r < rows; r++)
    while (*q < n + r)
      *p += 1;
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 2000;
  long total = 0;
  for (int r = 0; r < reps; ++r) {
    int x = r % 7;
    bump_rows(&x, &x, 4, 1000 + r % 16);
    total += x;
  }
  printf("total %ld\n", total);
  return 0;
}
