void step2(int *a, int *b, int n) {
  for (int i = 0; i < n; i += 2) b[i] = a[i] + a[i + 1];
}
