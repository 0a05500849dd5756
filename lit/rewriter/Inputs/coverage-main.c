// Drives lit/rewriter/Inputs/coverage.s (loops the rewriter used to skip or
// break) and the kernels of dl1-addresses.c.
#include <stdio.h>

void hexenc(const unsigned char *src, long n, unsigned short *dst);
long short_header(const long *a, int n);
long unknown_cfg(long op, const double *d, const long *a, long n);
long hoisted_switch(const unsigned char *ops, long n, const long *a);

unsigned stackHistogram(const unsigned *v, long n); // dl1-addresses.c
struct Rec {
  int Key, Val;
};
void gatherField(struct Rec *const *p, int *out, long n);


int main(void) {
  static unsigned char bytes[1000];
  static unsigned short hex[1000];
  static long a[1000];
  static double d[1000];
  static unsigned v[4000];
  for (int i = 0; i < 1000; ++i) {
    bytes[i] = (unsigned char)(i * 37 + 11);
    a[i] = i % 13 - 6;
    d[i] = i * 0.25;
  }
  for (int i = 0; i < 4000; ++i)
    v[i] = (unsigned)i * 2654435761u >> 7;
  static struct Rec recs[500];
  static struct Rec *ptrs[1000];
  static int field[1000];
  for (int i = 0; i < 1000; ++i) {
    recs[i % 500].Val = i * 3 - 700;
    ptrs[i] = &recs[(i * 7) % 500];
  }
  unsigned long sum = 0;
  for (int r = 0; r < 50; ++r) {
    hexenc(bytes, 1000 - r, hex);
    for (int i = 0; i < 1000; ++i)
      sum = sum * 3 + hex[i];
    sum += short_header(a, 1000 - r);
    for (long op = 0; op < 3; ++op)
      sum = sum * 7 + unknown_cfg(op, d, a, 1000 - r);
    sum += hoisted_switch(bytes, 1000 - r, a);
    sum += stackHistogram(v, 4000 - r);
    gatherField(ptrs, field, 1000 - r);
    for (int i = 0; i < 1000; ++i)
      sum = sum * 5 + (unsigned)field[i];
  }
  printf("%lu\n", sum);
  return 0;
}
