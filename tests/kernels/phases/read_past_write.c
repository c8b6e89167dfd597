void partial(int *a, int *b, int *c, int n) {
  for (int i = 0; i < n; i++) a[i] = b[i] + 1;
  for (int i = 0; i < n + 1; i++) c[i] = a[i] * 2;
}
