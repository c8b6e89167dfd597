// BLAS-style dot product returning its result through a pointer
void dot_out(int n, const float *x, const float *y, float *result) {
  float s = 0.0f;
  for (int i = 0; i < n; i++)
    s += x[i] * y[i];
  *result = s;
}
