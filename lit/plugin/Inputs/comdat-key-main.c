// Driver of comdat-key.ll: calls its comdat function enough to measure it.
#include <stdio.h>
long sum_here(const long *a, long n);
int main(void) {
  static long a[100];
  long t = 0;
  for (int i = 0; i < 100; ++i)
    a[i] = i;
  for (int r = 0; r < 100; ++r)
    t = sum_here(a, 100);
  printf("sum=%ld\n", t);
  return 0;
}
