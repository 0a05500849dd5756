// Second translation unit of comdat-mixed.cpp: instantiates sumsq<double>
// too, and has a loop of its own.
#include "comdat-mixed.h"
#include <cstdio>

double side(const double *a, int n);

int main() {
  static double a[512];
  double t = 0;
  for (int r = 0; r < 60; ++r) {
    for (int i = 0; i < 512; ++i)
      a[i] = (i % 13) * 0.5 + r;
    t += side(a, 512) + sumsq(a, 500);
  }
  std::printf("%.3f\n", t);
}
