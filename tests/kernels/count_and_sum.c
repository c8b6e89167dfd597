int count_and_sum(int *a, int *b, int n) {
  int k = 3; int c = 0;
  for (int i = 0; i < n; ++i) { b[k - 3] = a[i] * 2; k = k + 1; c += 1; }
  return c + k;
}
