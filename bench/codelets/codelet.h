/*===- codelet.h - Driver shared by the validation codelets -----*- C -*-===*\
|*                                                                          *|
|* Part of decan's validation suite (bench/codelets).                       *|
|*                                                                          *|
\*===----------------------------------------------------------------------===*/
/*
 * Every codelet is one C file that defines
 *
 *   #define CODELET_NAME "triad"
 *   static void codelet_setup(long n);    allocate + initialise for size n
 *   static void codelet_call(void);       one call of the kernel (noinline)
 *   static double codelet_checksum(void); keeps the results alive
 *
 * and then includes this header, which provides main():
 *
 *   codelet N CALLS [run|ref|probe]
 *
 *   run   (default) calls the kernel CALLS times and prints a checksum. This is
 *         what `decan run` measures.
 *   ref   prints one JSON line with the thesis's two measurement methods
 *         (chapter 7.3): the repetition-loop reference (probes around the
 *         whole loop of CALLS calls, Algorithm 4; fastest of 11 rounds) and
 *         per-call probes
 *         (Algorithm 5), plus the cost of an empty probe pair. The probes are
 *         the runtime's: `lfence; rdtsc` ... `rdtscp; lfence`.
 *
 * Measurement hygiene (BHive, thesis 7.4): data are initialised with normal
 * numbers well away from the denormal range and from zero divisors, arrays
 * are 64-byte aligned and staggered by a few cache lines so that streams do
 * not alias modulo 4 KiB, and one unmeasured warm-up call precedes timing.
 */
#ifndef DECAN_BENCH_CODELET_H
#define DECAN_BENCH_CODELET_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CODELET_NOINLINE __attribute__((noinline))
/* Memory may have changed: keeps the compiler from hoisting a kernel call
   that only reads memory out of the repetition loop. */
#define CODELET_OPAQUE() __asm__ volatile("" ::: "memory")

/* Allocations are staggered by this many bytes per array to avoid 4 KiB
   aliasing between streams (BHive's "virtual address aliasing" trap). */
static unsigned codelet_stagger;

/* 64-byte aligned, zero-filled buffer of `bytes`, never freed (the process
   ends after one measurement). */
static void *codelet_alloc(size_t bytes) {
  size_t pad = 64 * (1 + (codelet_stagger++ % 16)) * 3;
  char *p = (char *)aligned_alloc(4096, ((bytes + pad + 4095) / 4096) * 4096);
  if (!p) {
    fprintf(stderr, "codelet: out of memory (%zu bytes)\n", bytes);
    exit(2);
  }
  memset(p, 0, bytes + pad);
  return p + pad;
}

/* Deterministic pseudo-random numbers (xorshift64*), same on every run. */
static uint64_t codelet_rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t codelet_rand(void) {
  uint64_t x = codelet_rng_state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  codelet_rng_state = x;
  return x * 0x2545f4914f6cdd1dull;
}
/* Uniform in [lo, hi): normal numbers only, never denormal. */
__attribute__((unused)) static double codelet_uniform(double lo, double hi) {
  return lo + (hi - lo) * (double)(codelet_rand() >> 11) *
                  (1.0 / 9007199254740992.0);
}

static void codelet_setup(long n);
static void codelet_call(void);
static double codelet_checksum(void);
/* Innermost-loop calls per codelet_call() (for run lengths and precision). */
static long codelet_loop_calls(void);

/* Elements one call works on at most. A RAM-resident array is walked in
   windows of this size, one window per call, so a call stays well under a
   scheduler tick (a call with a context switch is excluded from decan's
   statistics) while every window still comes from memory: the whole array
   is larger than the last-level cache, so a window is cold when it comes
   round again. Smaller arrays are processed whole in each call. */
#define CODELET_CHUNK 262144L

/* Length of the window of an array of n elements, and the next window's
   offset after *off (windows are consecutive, wrapping to 0). */
static inline long codelet_window_len(long n, long chunk) {
  return n < chunk ? n : chunk;
}
__attribute__((unused)) static long codelet_next(long *off, long n, long len) {
  long cur = *off;
  *off = cur + 2 * len > n ? 0 : cur + len;
  return cur;
}

static inline uint64_t codelet_probe_begin(void) {
  uint32_t lo, hi;
  __asm__ volatile("lfence\n\trdtsc" : "=a"(lo), "=d"(hi)::"memory");
  return ((uint64_t)hi << 32) | lo;
}
static inline uint64_t codelet_probe_end(void) {
  uint32_t lo, hi, aux;
  __asm__ volatile("rdtscp\n\tlfence"
                   : "=a"(lo), "=d"(hi), "=c"(aux)::"memory");
  return ((uint64_t)hi << 32) | lo;
}

static int codelet_cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Sorts v[0..n) and returns its median. */
static uint64_t codelet_median(uint64_t *v, long n) {
  qsort(v, (size_t)n, sizeof *v, codelet_cmp_u64);
  return v[n / 2];
}

static void codelet_ref(long n, long calls) {
  enum { PAIRS = 1001 };
  static uint64_t pair[PAIRS];
  uint64_t *per_call = (uint64_t *)malloc(sizeof(uint64_t) * (size_t)calls);
  if (!per_call) {
    fprintf(stderr, "codelet: out of memory\n");
    exit(2);
  }
  for (int i = 0; i < PAIRS; ++i) {
    uint64_t t0 = codelet_probe_begin();
    uint64_t t1 = codelet_probe_end();
    pair[i] = t1 - t0;
  }
  uint64_t pair_min, pair_med = codelet_median(pair, PAIRS);
  pair_min = pair[0];

  codelet_call(); /* warm-up: cold code and data */
  /* Algorithm 4: probes around the repetition loop. A preemption inside a
     round inflates its mean, never deflates it: the reference is the
     fastest of ROUNDS rounds (the thesis ran on a quiet machine). */
  enum { ROUNDS = 11 };
  double reference = 0;
  for (int r = 0; r < ROUNDS; ++r) {
    uint64_t t0 = codelet_probe_begin();
    for (long c = 0; c < calls; ++c) {
      codelet_call();
      CODELET_OPAQUE();
    }
    uint64_t t1 = codelet_probe_end();
    double mean = (double)(t1 - t0) / (double)calls;
    if (r == 0 || mean < reference)
      reference = mean;
  }
  /* Algorithm 5: probes around each call. */
  for (long c = 0; c < calls; ++c) {
    uint64_t a = codelet_probe_begin();
    codelet_call();
    CODELET_OPAQUE();
    uint64_t b = codelet_probe_end();
    per_call[c] = b - a;
  }
  uint64_t med = codelet_median(per_call, calls);
  uint64_t mn = per_call[0];
  printf(
      "{\"codelet\":\"%s\",\"n\":%ld,\"calls\":%ld,\"loop_calls_per_call\":%ld,"
      "\"reference_cycles_per_call\":%.3f,"
      "\"per_call_cycles\":{\"min\":%llu,\"median\":%llu},"
      "\"probe_pair_cycles\":{\"min\":%llu,\"median\":%llu},"
      "\"checksum\":%.17g}\n",
      CODELET_NAME, n, calls, codelet_loop_calls(), reference,
      (unsigned long long)mn, (unsigned long long)med,
      (unsigned long long)pair_min, (unsigned long long)pair_med,
      codelet_checksum());
  free(per_call);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s N CALLS [run|ref]\n", argv[0]);
    return 2;
  }
  char *end;
  long n = strtol(argv[1], &end, 10);
  long calls = end != argv[1] && *end == 0 ? strtol(argv[2], &end, 10) : 0;
  if (n <= 0 || calls <= 0 || *end != 0) {
    fprintf(stderr, "%s: N and CALLS must be positive integers\n", argv[0]);
    return 2;
  }
  const char *mode = argc > 3 ? argv[3] : "run";
  codelet_setup(n);
  if (!strcmp(mode, "ref")) {
    codelet_ref(n, calls);
    return 0;
  }
  if (strcmp(mode, "run")) {
    fprintf(stderr, "%s: unknown mode '%s' (run|ref)\n", argv[0], mode);
    return 2;
  }
  for (long c = 0; c < calls; ++c) {
    codelet_call();
    CODELET_OPAQUE();
  }
  printf("%s n=%ld calls=%ld checksum=%.17g\n", CODELET_NAME, n, calls,
         codelet_checksum());
  return 0;
}

#endif /* DECAN_BENCH_CODELET_H */
