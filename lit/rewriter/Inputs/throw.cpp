#include <cstdio>
#include <stdexcept>

// An exception thrown by a call inside an innermost loop, caught by the
// loop's caller (run) or around the loop in its own function (guarded).
__attribute__((noinline)) double step(double x, int i, int stop) {
  if (i == stop)
    throw std::runtime_error("stop");
  return x * 1.0001 + i;
}

__attribute__((noinline)) double run(int n, int stop) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s = step(s, i, stop);
  return s;
}

__attribute__((noinline)) double guarded(int n, int stop) {
  double s = 0;
  try {
    for (int i = 0; i < n; ++i)
      s = step(s, i, stop);
  } catch (const std::exception &) {
    s = -1;
  }
  return s;
}

// noexcept: an exception from step ends the program (GCC leaves the call
// out of the exception table; clang gives it a terminate handler).
__attribute__((noinline)) double strict(int n, int stop) noexcept {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s = step(s, i, stop);
  return s;
}

int main(int argc, char **) {
  int caught = 0;
  double sum = 0;
  for (int r = 0; r < 12; ++r) {
    try {
      sum += run(1000, r % 2 ? 700 + argc : -1);
    } catch (const std::exception &e) {
      ++caught;
    }
  }
  std::printf("sum %.6g caught %d guarded %g\n", sum, caught,
              guarded(1000, 500 + argc));
  std::fflush(stdout);
  // With an argument, strict's exception ends the program: it must not
  // reach this handler (kept: the call through a plain function pointer
  // may throw, as far as the compiler knows).
  double (*volatile Strict)(int, int) = strict;
  try {
    std::printf("strict %.6g\n", Strict(1000, argc > 1 ? 300 : -1));
  } catch (...) {
    std::printf("an exception left a noexcept function\n");
  }
  return 0;
}
