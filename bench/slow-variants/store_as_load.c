// bench/slow-variants: bzip2's quadrant loop (libbz2 sub_3080:L19,
// quadrant[ptr[j]] = j >> shifts, a second store for the first 34 entries)
// and what LS can put in place of its 2-byte stores: the loads decan's LS
// uses (into %ax, and zero-extending), a write prefetch, and the loop with
// its stores kept and its arithmetic gone (what LS should measure).
// Usage: store_as_load TABLE_ENTRIES; prints median cycles per iteration.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <x86intrin.h>

typedef void Loop(const int *Idx, uint16_t *Tab, long N, int Shift);

// %rsi counts down, %r8 = Idx, %r9 = Tab, as in the library's loop.
#define LOOP(NAME, FIRST, SECOND, ARITH)                                       \
  static void NAME(const int *Idx, uint16_t *Tab, long N, int Shift) {         \
    asm volatile("movl %[sh], %%ecx\n"                                         \
                 "1: movslq (%[idx],%[i],4), %%r10\n" ARITH FIRST "\n"         \
                 " movq %%r10, %%rdx\n cmpl $33, %%r10d\n jg 2f\n"             \
                 " addl $7, %%edx\n movslq %%edx, %%rdx\n" SECOND "\n"         \
                 "2: subq $1, %[i]\n testl %%esi, %%esi\n jns 1b\n"            \
                 : [i] "+S"(N)                                                 \
                 : [idx] "r"(Idx), [tab] "r"(Tab), [sh] "r"(Shift)             \
                 : "rax", "rcx", "rdx", "rdi", "r10", "memory", "cc");         \
  }
#define SHIFT " movl %%esi, %%edi\n sarl %%cl, %%edi\n"
LOOP(ref, " movw %%di, (%[tab],%%r10,2)", " movw %%di, (%[tab],%%rdx,2)", SHIFT)
LOOP(asLoad, " movw (%[tab],%%r10,2), %%ax", " movw (%[tab],%%rdx,2), %%ax", "")
LOOP(asLoadZx, " movzwl (%[tab],%%r10,2), %%eax",
     " movzwl (%[tab],%%rdx,2), %%eax", "")
LOOP(prefetchW, " prefetchw (%[tab],%%r10,2)", " prefetchw (%[tab],%%rdx,2)",
     "")
LOOP(storesOnly, " movw %%r10w, (%[tab],%%r10,2)",
     " movw %%dx, (%[tab],%%rdx,2)", "")

static int cmp(const void *A, const void *B) {
  uint64_t X = *(const uint64_t *)A, Y = *(const uint64_t *)B;
  return X < Y ? -1 : X > Y;
}

int main(int Argc, char **Argv) {
  long Entries = Argc > 1 ? atol(Argv[1]) : 900000, Iters = 2600;
  enum { Reps = 2001, Pool = 1000000, Kinds = 5 };
  uint16_t *Tab = calloc(Entries + 64, 2);
  int *Idx = malloc(sizeof(int) * Pool);
  srand(1);
  for (int I = 0; I < Pool; I++)
    Idx[I] = rand() % Entries;
  Loop *Fn[Kinds] = {ref, asLoad, asLoadZx, prefetchW, storesOnly};
  const char *Name[Kinds] = {"REF (stores)", "LS: loads into %ax",
                             "loads, zero-extended", "prefetchw",
                             "stores kept, no arithmetic"};
  static uint64_t Cycles[Kinds][Reps];
  // Interleaved, each call on another slice of the indices.
  for (int R = 0; R < Reps; R++)
    for (int K = 0; K < Kinds; K++) {
      const int *P = Idx + rand() % (Pool - Iters);
      uint64_t T = __rdtsc();
      Fn[K](P, Tab, Iters - 1, 3);
      Cycles[K][R] = __rdtsc() - T;
    }
  for (int K = 0; K < Kinds; K++) {
    qsort(Cycles[K], Reps, 8, cmp);
    printf("%ld entries  %-28s %6.1f cycles/iteration\n", Entries, Name[K],
           Cycles[K][Reps / 2] / (double)Iters);
  }
  return 0;
}
