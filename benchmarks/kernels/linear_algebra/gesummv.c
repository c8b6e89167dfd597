/* y = alpha * A x + beta * B x: one nest with two row reductions, then a combination. */
void gesummv(int n, float alpha, float beta, float *A, float *B, float *x, float *tmp, float *y) {
  for (int i = 0; i < n; i++) {
    float t = 0.0f, u = 0.0f;
    for (int j = 0; j < n; j++) { t += A[i * n + j] * x[j]; u += B[i * n + j] * x[j]; }
    tmp[i] = t;
    y[i] = u;
  }
  for (int i = 0; i < n; i++) y[i] = alpha * tmp[i] + beta * y[i];
}
