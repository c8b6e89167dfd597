// a "valid" 1-D convolution (correlation): out[i] = sum_j x[i + j] * w[j], sliding windows of x
void conv1d_valid(int n, int k, float *x, float *w, float *out) {
  for (int i = 0; i < n; i++) {
    float s = 0.0f;
    for (int j = 0; j < k; j++) s += x[i + j] * w[j];
    out[i] = s;
  }
}
