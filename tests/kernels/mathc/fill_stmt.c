void fill_cpu(int N, float ALPHA, float *X, int INCX) {
  int i;
  for (i = 0; i < N; ++i) X[i * INCX] = ALPHA;
}
void fill_stmt(float *x, int n) {
  fill_cpu(n, 0, x, 1);
}
