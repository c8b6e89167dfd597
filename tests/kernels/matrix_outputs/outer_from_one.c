/* An outer product whose outer loop starts at 1: not a matrix output yet (refused). */
void outer_from_one(int m, int n, int *x, int *y, int *a) {
  for (int i = 1; i < m; i++)
    for (int j = 0; j < n; j++) a[i * n + j] = x[i] * y[j];
}
