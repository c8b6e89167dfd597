void flat_copy2(int *A, int *out, int m, int n) {
  int k = 0;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) { out[k] = 2 * A[i * n + j]; k++; }
}
