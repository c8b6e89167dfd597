// y = b + A.x (one bias per row: the product's rows)
void gemv_plus_bias(int m, int n, int *a, int *x, int *b, int *y) {
  for (int i = 0; i < m; i++) {
    int acc = b[i];
    for (int j = 0; j < n; j++)
      acc += a[i * n + j] * x[j];
    y[i] = acc;
  }
}
