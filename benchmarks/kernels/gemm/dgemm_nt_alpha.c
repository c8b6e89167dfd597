// C = alpha * A * B^T (double), the ld of each matrix equal to its columns
void dgemm_nt_alpha(int m, int n, int k, double alpha, double *a, double *b, double *c) {
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      double sum = 0.0;
      for (int p = 0; p < k; ++p)
        sum += a[i * k + p] * b[j * k + p];
      c[i * n + j] = alpha * sum;
    }
  }
}
