// Loops whose exit test reads memory (issue 27), for both front ends.
// copy_until stores through another pointer than the one its exit reads:
// nothing proves whether they alias, so its variants are built in copies
// that carry an iteration cap and count their trips. Called with dst ==
// src + 1 one call in four, its stores do change what the exit reads: a
// variant (which writes no memory) then runs more iterations than REF,
// and that sample is dropped. chain_root's exit reads the array it stores
// to, and drain's exit tests what a call that writes memory returns: both
// stay REF only, with what a user could change. Prints what a plain build
// prints.
#include <stdio.h>
#include <stdlib.h>

enum { N = 4096 };

__attribute__((noinline)) long copy_until(int *dst, const int *src, int stop) {
  long i = 0;
  while (src[i] != stop) {
    dst[i] = src[i] * 3 + 1;
    ++i;
  }
  return i;
}

__attribute__((noinline)) int chain_root(int *parent, int x) {
  int t = 0;
  while (parent[x] != x) {
    parent[N + (t++ & 63)] = x;
    x = parent[x];
  }
  return x + t;
}

__attribute__((noinline)) int pop(int *stack, int *top) {
  return *top > 0 ? stack[--*top] : -1;
}

__attribute__((noinline)) long drain(int *stack, int *top) {
  long s = 0;
  int v;
  while ((v = pop(stack, top)) >= 0)
    s += v;
  return s;
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 4000;
  static int src[N + 16], dst[N + 16], buf[N + 16], parent[N + 64];
  static int stack[N];
  long total = 0;
  for (int i = 0; i < N; ++i)
    src[i] = i & 1023; // never -1
  src[N] = -1;
  for (int r = 0; r < reps; ++r) {
    if (r % 4 == 3) {
      // Aliased: REF writes 1, 4, 13, 40, 121, 364 ahead of its exit and
      // stops at 364 after 5 iterations; without the stores the exit sees
      // the original (odd) values and reaches the 364 at buf[N].
      for (int i = 0; i < N; ++i)
        buf[i] = 2 * i + 1;
      buf[0] = 1;
      buf[N] = 364;
      total += copy_until(buf + 1, buf, 364);
    } else {
      total += copy_until(dst, src + (r & 15), -1) + dst[r & 1023];
    }
    for (int i = 0; i < 256; ++i)
      parent[i] = i ? i - 1 : 0;
    total += chain_root(parent, 255);
    int top = 0;
    for (int i = 0; i < 64; ++i)
      stack[top++] = i * r % 97;
    total += drain(stack, &top);
  }
  printf("total %ld\n", total);
  return 0;
}
