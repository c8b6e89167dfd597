// a float dense layer: C = A.B + bias (bias per output column)
void dense_bias_f(int m, int n, int k, float *a, float *b, float *bias, float *c) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      float acc = bias[j];
      for (int p = 0; p < k; p++)
        acc += a[i * k + p] * b[p * n + j];
      c[i * n + j] = acc;
    }
}
