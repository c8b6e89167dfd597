/* Add a bias vector to every row of a matrix (a column bias). */
void bias_cols(int m, int n, float *A, float *b, float *B) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) B[i * n + j] = A[i * n + j] + b[j];
}
