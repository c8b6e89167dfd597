void col_sums_vla(int n, int m, const float A[n][m], float *s) {
  for (int j = 0; j < m; j++) {
    float t = 0;
    for (int i = 0; i < n; i++) t += A[i][j];
    s[j] = t;
  }
}
