/*===- tsc_ratio.c - Core cycles per TSC tick ----------------*- C -*-===*\
|* Part of decan's validation suite (bench/validation).                   *|
\*===----------------------------------------------------------------------===*/
/*
 * decan's probes read the TSC, which ticks at a constant rate, while llvm-mca
 * predicts core clock cycles. This program times a chain of dependent integer
 * additions (one core cycle each on every x86-64 core since the P6) against
 * the TSC and prints the ratio core cycles / TSC tick, so that bench/run can
 * put predictions and measurements on one scale. Other work on the machine
 * can only make a run look slower, never faster, so the ratio is the largest
 * of 301 short runs (the median and the smallest are printed too). It also
 * prints the TSC's frequency and its granularity (smallest step seen).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline uint64_t tsc(void) {
  uint32_t lo, hi;
  __asm__ volatile("lfence\n\trdtsc" : "=a"(lo), "=d"(hi)::"memory");
  return ((uint64_t)hi << 32) | lo;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(void) {
  enum { RUNS = 301, ITER = 100000 };
  double ratio[RUNS];
  for (int r = 0; r < RUNS; ++r) {
    uint64_t x = (uint64_t)r;
    uint64_t t0 = tsc();
    for (long i = 0; i < ITER; ++i)
      /* 10 dependent 1-cycle adds; the loop counter runs in parallel. */
      __asm__ volatile("add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
                       "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
                       "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
                       "add $1, %0"
                       : "+r"(x));
    uint64_t t1 = tsc();
    ratio[r] = 10.0 * ITER / (double)(t1 - t0);
    if (x == 42)
      puts("");
  }
  qsort(ratio, RUNS, sizeof *ratio, cmp);
  /* Granularity: the smallest nonzero step between two back-to-back reads
     (a virtualised TSC may advance in steps of many ticks). */
  uint64_t step = ~0ull, prev = tsc();
  for (int i = 0; i < 100000; ++i) {
    uint64_t t = tsc();
    if (t != prev && t - prev < step)
      step = t - prev;
    prev = t;
  }
  /* TSC frequency: ticks over 50 ms of CLOCK_MONOTONIC. */
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  uint64_t s0 = tsc();
  do
    clock_gettime(CLOCK_MONOTONIC, &b);
  while ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec) < 5e7);
  uint64_t s1 = tsc();
  double hz = (double)(s1 - s0) /
              ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9);
  printf("{\"core_cycles_per_tsc_tick\":%.4f,\"median\":%.4f,\"min\":%.4f,"
         "\"tsc_hz\":%.4g,\"tsc_step\":%llu}\n",
         ratio[RUNS - 1], ratio[RUNS / 2], ratio[0], hz,
         (unsigned long long)step);
  return 0;
}
