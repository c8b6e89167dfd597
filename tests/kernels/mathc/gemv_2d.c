#define N 8
#define M 6
void gemv_2d(int n, int m, double A[N][M], double x[M], double y[N]) {
  int i, j;
  for (i = 0; i < n; i++) {
    y[i] = 0.0;
    for (j = 0; j < m; j++) y[i] = y[i] + A[i][j] * x[j];
  }
}
