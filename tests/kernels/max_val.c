int max_val(int *a, int n) {
  int m = -1000;
  for (int i = 0; i < n; i++) { if (a[i] > m) m = a[i]; }
  return m;
}
