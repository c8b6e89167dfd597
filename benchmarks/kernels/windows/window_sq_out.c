// energy of a window (sum of squares), stored through a pointer
void window_sq_out(int stride, int h, int w, const float *x, float *out) {
  float e = 0.0f;
  for (int y = 0; y < h; y++)
    for (int z = 0; z < w; z++)
      e += x[y * stride + z] * x[y * stride + z];
  *out = e;
}
