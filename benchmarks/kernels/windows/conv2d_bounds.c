// valid 2-D correlation written with the bounds `i + k <= h`: out[i][j] = sum_{a,b} in[i+a][j+b] * w[a][b]
void conv2d_bounds(int h, int w_, int k, float *in, float *w, float *out) {
  for (int i = 0; i + k <= h; i++) {
    for (int j = 0; j + k <= w_; j++) {
      float s = 0.0f;
      for (int a = 0; a < k; a++)
        for (int b = 0; b < k; b++)
          s += in[(i + a) * w_ + j + b] * w[a * k + b];
      out[i * (w_ - k + 1) + j] = s;
    }
  }
}
