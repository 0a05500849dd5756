#include <cstdio>
#include <stdexcept>

// Two phases: the second's loop calls a function that throws, and first
// runs long after the first's, so its late variants come in a second
// round of packs (mapped past the first in the late range).
__attribute__((noinline)) double phase_a(const double *a, long n) {
  double s = 0;
  for (long i = 0; i < n; ++i)
    s += a[i] * 0.5 + 1.0;
  return s;
}

__attribute__((noinline)) double step(double x, long i, long stop) {
  if (i == stop)
    throw std::runtime_error("stop");
  return x * 0.999 + i;
}

__attribute__((noinline)) double phase_b(long n, long stop) {
  double s = 0;
  for (long i = 0; i < n; ++i)
    s = step(s, i, stop);
  return s;
}

int main() {
  static double a[1024];
  for (int i = 0; i < 1024; ++i)
    a[i] = (i % 7) * 0.25;
  double t = 0;
  for (int r = 0; r < 40000; ++r)
    t += phase_a(a, 1024 - (r % 8));
  long caught = 0;
  for (int r = 0; r < 20000; ++r) {
    try {
      t += phase_b(1024, r % 2 ? 700 : -1);
    } catch (const std::exception &) {
      ++caught;
    }
  }
  std::printf("total=%.6f caught=%ld\n", t, caught);
  return 0;
}
