/* A reduction over a descending counter reading a[i - 1]. */
int sum_down(int *a, int n) {
  int s = 0;
  for (int i = n; i > 0; i--) s += a[i - 1] * 2;
  return s;
}
