// Loops whose DL1 variant once broke the program, for both front ends
// (lit/rewriter/coverage.test, lit/plugin/dl1-addresses.test): a histogram
// kept on the stack (DL1 must not take %rsp for its scratch base) and a
// field gathered through an array of pointers (DL1 must not load the
// pointers from the scratch area).
#include <stdio.h>

struct Rec {
  int Key, Val;
};

__attribute__((noinline)) unsigned stackHistogram(const unsigned *v, long n) {
  unsigned h[256] = {0};
  for (long i = 0; i < n; ++i)
    h[v[i] & 255] += 1;
  unsigned s = 0;
  for (int k = 0; k < 256; ++k)
    s = s * 31 + h[k];
  return s;
}

// sqlite's gather of one field through an array of pointers: DL1 must not
// load the pointers from the scratch area.
__attribute__((noinline)) void gatherField(struct Rec *const *p, int *out,
                                           long n) {
  for (long i = 0; i < n; ++i)
    out[i] = p[i]->Val;
}

#ifdef DL1_ADDRESSES_MAIN
int main(void) {
  static struct Rec recs[500];
  static struct Rec *ptrs[1000];
  static int field[1000];
  static unsigned v[4000];
  for (int i = 0; i < 1000; ++i) {
    recs[i % 500].Val = i * 3 - 700;
    ptrs[i] = &recs[(i * 7) % 500];
  }
  for (int i = 0; i < 4000; ++i)
    v[i] = (unsigned)i * 2654435761u >> 7;
  unsigned long sum = 0;
  for (int r = 0; r < 50; ++r) {
    sum += stackHistogram(v, 4000 - r);
    gatherField(ptrs, field, 1000 - r);
    for (int i = 0; i < 1000; ++i)
      sum = sum * 5 + (unsigned)field[i];
  }
  printf("%lu\n", sum);
  return 0;
}
#endif
