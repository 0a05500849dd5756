// A library the program finds through its $ORIGIN search path.
int origin_work(int n) {
  int s = 0;
  for (int i = 0; i < n; i++)
    s += i * i % 7;
  return s;
}
