/* BLAS ger: the rank-1 update a += x * y^T of a row-major m x n matrix. */
void ger(int m, int n, int *a, int *x, int *y) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) a[j + i * n] += x[i] * y[j];
}
