// one output of a 2-D correlation: the k x k window of img (row stride w) at (r, c) times the kernel
float window_dot(int w, int k, int r, int c, const float *img, const float *ker) {
  float acc = 0.0f;
  for (int a = 0; a < k; a++)
    for (int b = 0; b < k; b++)
      acc += img[(r + a) * w + (c + b)] * ker[a * k + b];
  return acc;
}
