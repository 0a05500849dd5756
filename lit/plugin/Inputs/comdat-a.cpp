// Second translation unit of comdat.cpp: also instantiates hsum().
#include "comdat.h"
double f1(const double *a, int n) { return hsum(a, n) + 1; }
