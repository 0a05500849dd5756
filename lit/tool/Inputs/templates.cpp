// C++ loops in templates, for decan list's short names (listed, never run:
// fillUntil's stores may reach the stop it reads): a loop whose exit
// reads memory the loop may write (built in capped copies) and a reduction.
#include <cstdlib>

namespace outer::inner {
template <typename T, int N> struct Buffer {
  T Data[N];
  // The exit reads *Stop, which a store through Out may write.
  template <typename Pred>
  __attribute__((noinline)) int fillUntil(Pred P, T *Out, const int *Stop) {
    int I = 0;
    while (I < *Stop && !P(Data[I])) {
      Out[I] = Data[I] * 2;
      ++I;
    }
    return I;
  }
  __attribute__((noinline)) T sum() const {
    T S = 0;
    for (int I = 0; I < N; ++I)
      S += Data[I] * Data[I];
    return S;
  }
};
} // namespace outer::inner

int main(int argc, char **) {
  auto *B = new outer::inner::Buffer<double, 4096>();
  for (int I = 0; I < 4096; ++I)
    B->Data[I] = I % 7;
  int Stop = 4000 + argc;
  int K = B->fillUntil([](double X) { return X > 1e9; },
                       reinterpret_cast<double *>(&Stop) - argc + 1, &Stop);
  return (int)B->sum() % 3 + K % 2;
}
