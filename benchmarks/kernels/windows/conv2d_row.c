// one output row of a 2-D correlation: out[j] = sum_{a,b} in[a*n + j + b] * w[a*k + b]
void conv2d_row(int ow, int k, int n, const float *in, const float *w, float *out) {
  for (int j = 0; j < ow; j++) {
    float s = 0.0f;
    for (int a = 0; a < k; a++)
      for (int b = 0; b < k; b++)
        s += in[a * n + j + b] * w[a * k + b];
    out[j] = s;
  }
}
