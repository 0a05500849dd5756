inline double hsum(const double *a, int n) { double s = 0; for (int i = 0; i < n; ++i) s += a[i]; return s; }
