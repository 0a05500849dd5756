/*===- truth.h - Harness of the source-level truth benchmark ---*- C -*-===*\
|* Part of decan's benchmarks (bench/truth).                              *|
\*===----------------------------------------------------------------------===*/
/* Each kernel file defines CALLS, setup() and one_call(k, n): the outer loop
   here calls the measured loop CALLS times. `prog skip` calls it with n = 0
   (the call and the outer loop stay, the loop does no work): run.py takes
   that time off both builds, so "realized" is the loop's own ratio. Built
   with -DFIX the file's loop is the fixed source; the outer loop is the
   same. The result is printed and memory is clobbered after each call, so
   no call is dead or hoisted. */
#ifndef TRUTH_H
#define TRUTH_H
#include <stdio.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

static void setup(void);
static double one_call(long k, long n);

int main(int argc, char **argv) {
  int Skip = argc > 1 && strcmp(argv[1], "skip") == 0;
  setup();
  double Sum = 0;
  for (long K = 0; K < CALLS; ++K) {
    Sum += one_call(K, Skip ? 0 : LEN);
    __asm__ volatile("" ::: "memory"); /* no call is hoisted or merged */
  }
  printf("%g\n", Sum);
  return 0;
}
#endif
