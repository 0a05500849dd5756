// Shared by comdat-mixed.cpp and Inputs/comdat-mixed-main.cpp.
template <class T> T sumsq(const T *a, int n) {
  T s = 0;
  for (int i = 0; i < n; ++i)
    s += a[i] * a[i];
  return s;
}
