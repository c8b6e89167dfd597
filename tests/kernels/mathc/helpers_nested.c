void fill(int N, float A, float *X, int INC) {
  int i;
  for (i = 0; i < N; ++i) X[i * INC] = A;
}
void fill2(int N, float *X, float *Y) {
  fill(N, 1, X, 1);
  fill(N, 2, Y, 1);
}
void helpers_nested(float *x, float *y, float *z, int n) {
  fill2(n, x, y);
  fill(n, 3, z + 1, 1);
}
