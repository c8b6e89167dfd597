// s = A^T r and q = A p computed in one inner loop
void bicg_rows(int m, int n, const float *A, float *s, float *q, const float *p, const float *r) {
  for (int i = 0; i < m; i++)
    s[i] = 0;
  for (int i = 0; i < n; i++) {
    q[i] = 0;
    for (int j = 0; j < m; j++) {
      s[j] = s[j] + r[i] * A[i * m + j];
      q[i] = q[i] + A[i * m + j] * p[j];
    }
  }
}
