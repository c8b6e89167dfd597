// 2-D correlation with stride 2 (a downsampling convolution)
void conv2d_stride2(int oh, int ow, int k, int iw, const double *img, const double *ker, double *out) {
  for (int y = 0; y < oh; y++)
    for (int x = 0; x < ow; x++) {
      double s = 0.0;
      for (int a = 0; a < k; a++)
        for (int b = 0; b < k; b++)
          s += img[(2 * y + a) * iw + 2 * x + b] * ker[a * k + b];
      out[y * ow + x] = s;
    }
}
