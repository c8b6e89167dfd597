void shift(int *a, int *b, int *c, int n) {
  for (int i = 0; i < n; i++) a[i + 1] = b[i] + 1;
  for (int i = 0; i < n; i++) c[i] = a[i + 1] * 2;
}
