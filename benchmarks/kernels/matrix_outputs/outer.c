/* Outer product of two vectors into a row-major m x n matrix. */
void outer(int m, int n, float *x, float *y, float *a) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) a[i * n + j] = x[i] * y[j];
}
