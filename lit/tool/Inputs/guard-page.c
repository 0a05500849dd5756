// A loop whose exit reads what the loop stores (issue 27's exit rule): it
// marks cells until it has marked the one its exit reads next, the last
// before an inaccessible page; `q` is `p`, which neither alias analysis
// (plugin) nor the rewriter can tell. REF ends there; a variant, which
// never writes program memory, does not see the mark and walks on toward
// its iteration cap: LS (its stores became loads) reads the next cell, on
// the guard page. Prints what a plain build prints.
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

__attribute__((noinline)) long mark_until(int *p, const int *q, long n) {
  long i = 0;
  while (q[i] == 0) {
    p[i + 1] = i + 1 == n;
    ++i;
  }
  return i;
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 2000;
  long page = sysconf(_SC_PAGESIZE);
  char *m = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED || mprotect(m + page, page, PROT_NONE) != 0)
    return 2;
  int *end = (int *)(m + page); // the guard page starts here
  long total = 0;
  for (int r = 0; r < reps; ++r) {
    long n = 100 + r % 16;
    int *p = end - (n + 1);
    for (long i = 0; i <= n; ++i)
      p[i] = 0;
    total += mark_until(p, p, n);
  }
  printf("total %ld\n", total);
  return 0;
}
