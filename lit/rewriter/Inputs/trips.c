// Loops with known trip counts for trips-forms.test: a stride-3 counter, a
// count-down loop, a 32-bit counter and a pointer chase (no induction register:
// trips unknown, 0).
#include <stdio.h>
#include <stdlib.h>

struct node {
  struct node *next;
  long v;
};

__attribute__((noinline)) long stride3(const int *a, int n) {
  long s = 0;
  for (int i = 0; i < n; i += 3)
    s += a[i];
  return s;
}

__attribute__((noinline)) long down(const long *a, long n) {
  long s = 0;
  while (n-- > 0)
    s ^= a[n] * 7;
  return s;
}

__attribute__((noinline)) long chase(const struct node *p) {
  long s = 0;
  for (; p; p = p->next)
    s += p->v;
  return s;
}

// A 32-bit counter (`addl $2`): trips from the difference modulo 2^32.
__attribute__((noinline)) long u32(const long *a, unsigned n) {
  long s = 0;
  for (unsigned i = 0; i != n; i += 2)
    s += a[i & 1023];
  return s;
}

int main(void) {
  enum { N = 3000 };
  int *i32 = malloc(N * sizeof *i32);
  long *l = malloc(N * sizeof *l);
  struct node *nodes = malloc(100 * sizeof *nodes);
  for (int k = 0; k < N; ++k) {
    i32[k] = k % 11;
    l[k] = k * 3 + 1;
  }
  for (int k = 0; k < 100; ++k) {
    nodes[k].next = k + 1 < 100 ? &nodes[k + 1] : 0;
    nodes[k].v = k;
  }
  // Volatile arguments: the calls are read-only, and would otherwise be
  // hoisted out of the repetition loop (one call each).
  volatile int vn = N;
  volatile long vm = 700;
  volatile unsigned vu = 1000;
  struct node *volatile vp = nodes;
  long u = 0;
  for (int r = 0; r < 20; ++r)
    u += stride3(i32, vn) + down(l, vm) + chase(vp) + u32(l, vu);
  printf("u=%ld\n", u);
  return 0;
}
