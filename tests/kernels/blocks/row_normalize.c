/* Each row divided by its sum of squares: two inner loops per row (a reduction, then a map that reads it). */
void rownorm(const float *x, float *y, int m, int n) {
  for (int i = 0; i < m; i++) {
    float s = 0.0f;
    for (int j = 0; j < n; j++) s += x[i*n + j] * x[i*n + j];
    for (int j = 0; j < n; j++) y[i*n + j] = x[i*n + j] / s;
  }
}
