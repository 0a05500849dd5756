// A loop whose exit reads what the loop stores (issue 27's exit rule): it
// marks cells until it has marked the one its exit reads next, the last
// before an inaccessible page; `q` is `p`, which neither alias analysis
// (plugin) nor the rewriter can tell. REF ends there; a variant, which
// never writes program memory, does not see the mark and walks on toward
// its iteration cap: LS (its stores became loads) reads the next cell, on
// the guard page. Prints what a plain build prints.
//
// With a second argument `own` the program installs its own SIGSEGV handler
// first (which would end it with status 3 if a variant's fault reached it)
// and, after its loops, touches the guard page itself: that fault is the
// program's, its handler gets it with its own address and exits with 4.
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static char *guard;
static int touched;

static void on_segv(int sig, siginfo_t *si, void *ctx) {
  (void)sig, (void)ctx;
  const char *m = !touched ? "program's handler: a fault in its loop\n"
                  : (char *)si->si_addr == guard
                      ? "program's handler: its own fault, on the guard page\n"
                      : "program's handler: another address\n";
  ssize_t w = write(1, m, strlen(m));
  (void)w;
  _exit(touched ? 4 : 3);
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 2000;
  int own = argc > 2 && strcmp(argv[2], "own") == 0;
  long page = sysconf(_SC_PAGESIZE);
  char *m = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED || mprotect(m + page, page, PROT_NONE) != 0)
    return 2;
  int *end = (int *)(m + page); // the guard page starts here
  guard = m + page;
  if (own) {
    struct sigaction a, seen;
    memset(&a, 0, sizeof(a));
    a.sa_sigaction = on_segv;
    a.sa_flags = SA_SIGINFO;
    sigemptyset(&a.sa_mask);
    if (sigaction(SIGSEGV, &a, NULL) != 0 ||
        sigaction(SIGSEGV, NULL, &seen) != 0)
      return 5;
    printf("its handler in place: %s\n",
           seen.sa_sigaction == on_segv ? "yes" : "no");
  }
  long total = 0;
  for (int r = 0; r < reps; ++r) {
    long n = 100 + r % 16;
    int *p = end - (n + 1);
    for (long i = 0; i <= n; ++i)
      p[i] = 0;
    total += mark_until(p, p, n);
  }
  printf("total %ld\n", total);
  fflush(stdout);
  if (own) {
    touched = 1;
    *(volatile char *)guard = 1;
  }
  return 0;
}
