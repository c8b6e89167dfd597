static void scal(int n, float a, float *x) {
  for (int i = 0; i < n; ++i) x[i] *= a;
}
void scal_stmt(float *y, const float *x, float a, int n) {
  for (int i = 0; i < n; ++i) y[i] = x[i];
  scal(n, a, y);
}
