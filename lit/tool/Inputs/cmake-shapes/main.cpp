// Calls the C and the C++ library's loops, and has a loop of its own.
#include <cstdio>
#include <vector>

extern "C" double ckern(double *y, const double *x, int n);
double cxxkern(std::vector<double> &y, const std::vector<double> &x);

__attribute__((noinline)) static double scale(std::vector<double> &v) {
  double s = 0;
  for (double &e : v) {
    e *= 0.999;
    s += e;
  }
  return s;
}

int main() {
  std::vector<double> x(2048), y(2048);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = double(i % 7);
  double t = 0;
  for (int r = 0; r < 200; ++r)
    t += ckern(y.data(), x.data(), int(y.size())) + cxxkern(y, x) + scale(y);
  std::printf("done %d\n", t > 0);
  return 0;
}
