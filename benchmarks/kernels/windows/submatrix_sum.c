// sum of the leading m x n block of a row-major matrix with leading dimension lda (BLAS style)
double submatrix_sum(int m, int n, int lda, const double *a) {
  double s = 0.0;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      s += a[i * lda + j];
  return s;
}
