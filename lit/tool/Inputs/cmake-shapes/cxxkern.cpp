// A C++ loop in a shared library.
#include <cmath>
#include <vector>

double cxxkern(std::vector<double> &y, const std::vector<double> &x) {
  double s = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    y[i] = std::fabs(x[i]) * 0.5 + y[i];
    s += y[i];
  }
  return s;
}
