void pair_sum(int *a, int *out, int n) {
  for (int i = 0; i < n; i++) out[i] = a[2*i] + a[2*i + 1];
}
