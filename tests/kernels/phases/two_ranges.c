void two_ranges(int *a, int *b, int n) {
  for (int i = 0; i < n; i++) a[i] = b[i];
  for (int i = 0; i < n - 1; i++) a[i] = b[i] * 2;
}
