// A loop in a function that also dispatches through a jump table: the table
// is read (its entries name instructions of the function), so the CFG is
// known and the loop can move.
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) double f0(double x) { return x + 1; }
__attribute__((noinline)) double f1(double x) { return x * 2.5; }
__attribute__((noinline)) double f2(double x) { return x - 1; }
__attribute__((noinline)) double f3(double x) { return x * x; }
__attribute__((noinline)) double f4(double x) { return x / 3; }
__attribute__((noinline)) double f5(double x) { return -x; }

__attribute__((noinline)) double kernel(int op, const double *a, long n) {
  double s;
  switch (op) {
  case 0: s = f0(a[1]); break;
  case 1: s = f1(a[2]) + a[3]; break;
  case 2: s = f2(a[4]) * a[5]; break;
  case 3: s = f3(a[6]) - a[7]; break;
  case 4: s = f4(a[8]) + f0(a[9]); break;
  case 5: s = f5(a[10]) * f1(a[11]); break;
  default: return 0;
  }
  for (long i = 0; i < n; ++i)
    s += a[i] * s * 1e-6;
  return s;
}

int main(int argc, char **argv) {
  double a[512];
  for (int i = 0; i < 512; ++i)
    a[i] = i % 9;
  double t = 0;
  for (int r = 0; r < 60; ++r)
    t += kernel(r % 7, a, 512);
  printf("%.9f\n", t);
  return 0;
}
