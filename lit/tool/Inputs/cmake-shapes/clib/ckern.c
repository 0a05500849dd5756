// A C loop in a static library a subdirectory builds.
#include <math.h>

double ckern(double *y, const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) {
    y[i] = sqrt(x[i]) + y[i];
    s += y[i];
  }
  return s;
}
