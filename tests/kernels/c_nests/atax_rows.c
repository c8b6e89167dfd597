// y = A^T (A x): each row's value tmp[i], then a sum over the rows into y, in one outer loop
void atax_rows(int m, int n, const double *A, const double *x, double *y, double *tmp) {
  for (int i = 0; i < n; i++)
    y[i] = 0;
  for (int i = 0; i < m; i++) {
    tmp[i] = 0.0;
    for (int j = 0; j < n; j++)
      tmp[i] = tmp[i] + A[i * n + j] * x[j];
    for (int j = 0; j < n; j++)
      y[j] = y[j] + A[i * n + j] * tmp[i];
  }
}
