// Loop names (lit/tool/loop-names.test): two overloads of one C++ name,
// each with a loop, and a function template's instance.
#include <cstdio>
#include <cstdlib>

namespace kernels {
__attribute__((noinline)) double scale(const double *A, long N, double F) {
  double S = 0;
  for (long I = 0; I < N; ++I)
    S += A[I] * F;
  return S;
}
__attribute__((noinline)) double scale(const float *A, long N, double F) {
  double S = 0;
  for (long I = 0; I < N; ++I)
    S += A[I] * F;
  return S;
}
template <typename T> __attribute__((noinline)) T square(const T *A, long N) {
  T S = 0;
  for (long I = 0; I < N; ++I)
    S += A[I] * A[I];
  return S;
}
} // namespace kernels

int main(int argc, char **) {
  static double D[4096];
  static float F[4096];
  for (int I = 0; I < 4096; ++I)
    D[I] = F[I] = I % 7;
  double T = 0;
  for (int R = 0; R < 400 * argc; ++R)
    T += kernels::scale(D, 4096, 0.5) + kernels::scale(F, 4096, 0.25) +
         kernels::square(D, 4096 - R % 2);
  std::printf("%.1f\n", T);
  return 0;
}
