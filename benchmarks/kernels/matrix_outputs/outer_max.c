/* Pairwise maxima of two integer vectors. */
void outer_max(int m, int n, int *x, int *y, int *out) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) out[i * n + j] = x[i] > y[j] ? x[i] : y[j];
}
