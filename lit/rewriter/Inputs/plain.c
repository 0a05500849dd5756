// No headers: compiles for any target.
double sumsq(const double *a, long n) {
  double s = 0;
  for (long i = 0; i < n; ++i)
    s += a[i] * a[i];
  return s;
}
