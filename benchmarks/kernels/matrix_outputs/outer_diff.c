/* Pairwise differences x[i] - y[j] (a distance-matrix building block). */
void outer_diff(int m, int n, double *x, double *y, double *d) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) d[i * n + j] = x[i] - y[j];
}
