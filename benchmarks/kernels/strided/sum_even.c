int sum_even(int *a, int n) {
  int s = 0;
  for (int i = 0; i < n; i += 2) s += a[i];
  return s;
}
