#define N 40
void mvt_2d(int n, double x1[N], double y_1[N], double A[N][N]) {
  int i, j;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      x1[i] = x1[i] + A[i][j] * y_1[j];
}
