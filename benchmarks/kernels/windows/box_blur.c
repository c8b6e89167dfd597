// box filter: the mean of each k x k window (a 2-D convolution with equal weights)
void box_blur(int oh, int ow, int k, int iw, const float *img, float *out) {
  for (int i = 0; i < oh; i++)
    for (int j = 0; j < ow; j++) {
      float s = 0.0f;
      for (int a = 0; a < k; a++)
        for (int b = 0; b < k; b++)
          s += img[(i + a) * iw + j + b];
      out[i * ow + j] = s / (float)(k * k);
    }
}
