"""Writes a C file of N small functions, one loop each (a library large
enough that decan rewrite finds and builds its loops on several threads)."""
import sys

n = int(sys.argv[1])
for k in range(n):
    op = ["+", "*", "-"][k % 3]
    print(f"void f{k}(double *a, const double *b, long n) {{\n"
          f"  for (long i = 0; i < n; ++i)\n"
          f"    a[i] = a[i] {op} b[i] * {k + 1}.0;\n}}")
