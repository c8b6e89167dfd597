// a 1-D convolution with a bias (one channel of a conv layer): int data
void conv1d_bias(int n, int k, int bias, int *x, int *w, int *out) {
  for (int i = 0; i < n; i++) {
    int acc = bias;
    for (int j = 0; j < k; j++)
      acc += x[i + j] * w[j];
    out[i] = acc;
  }
}
