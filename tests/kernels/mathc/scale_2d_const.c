#define N 10
#define M 12
void scale_2d_const(int n, int m, double alpha, double C[N][M]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) C[i][j] *= alpha;
}
