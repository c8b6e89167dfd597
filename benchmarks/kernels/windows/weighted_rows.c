// x^T A 1 over a strided block: sum_i sum_j A[i][j] * x[j], minus a bias per element
int weighted_rows(int m, int n, int lda, int bias, const int *A, const int *x) {
  int t = 100;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      t -= A[i * lda + j] * x[j] - bias;
  return t;
}
