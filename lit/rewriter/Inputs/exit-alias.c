// Loops whose exit test reads memory (issue 27), for both front ends.
// copy_until stores through another pointer than the one its exit reads:
// nothing proves whether they alias, so its variants are built in copies
// that carry an iteration cap and count their trips. Called with dst ==
// src + 1 one call in four, its stores do change what the exit reads: a
// variant (which writes no memory) then runs more iterations than REF,
// and that sample is dropped. chain_root's exit reads the array it stores
// to (another element), and drain's exit tests what a call that writes
// memory returns: both stay REF only, with what a user could change;
// move_to_front and smear read the array they write through the same
// registers, the one never a stored byte, the other the previous
// iteration's. Prints what a plain build prints.
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

// bzip2's move-to-front: the exit tests list[j] before the loop stores
// there, and the loop never comes back: one array, but no byte the loop
// stored is read by the exit; variants, in capped copies.
__attribute__((noinline)) int move_to_front(unsigned char *list,
                                            unsigned char c) {
  unsigned char prev = list[0];
  int j = 0;
  while (prev != c) {
    ++j;
    unsigned char t = list[j];
    list[j] = prev;
    prev = t;
  }
  list[0] = c;
  return j;
}

// The value the exit tests moves one element ahead per iteration: the exit
// reads what the previous iteration stored, REF only.
__attribute__((noinline)) int smear(int *a, int stop) {
  int i = 0;
  while (a[i] != stop) {
    a[i + 1] = a[i] + 1;
    __asm__ volatile("" ::: "memory"); // no forwarding in registers
    ++i;
  }
  return i;
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
    static unsigned char mtf[256];
    if (r == 0)
      for (int i = 0; i < 256; ++i)
        mtf[i] = (unsigned char)i;
    total += move_to_front(mtf, (unsigned char)(r * 37 % 256));
    static int line[72];
    line[0] = r & 7;
    total += smear(line, (r & 7) + 64);
  }
  printf("total %ld\n", total);
  return 0;
}
