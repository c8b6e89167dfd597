void scale_vla(int n, int m, double alpha, double A[n][m], double B[n][m]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) B[i][j] = alpha * A[i][j];
}
