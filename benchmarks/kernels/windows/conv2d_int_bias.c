// integer 2-D correlation with a bias and a rectangular kh x kw kernel (image row stride iw)
void conv2d_int_bias(int oh, int ow, int kh, int kw, int iw, int bias,
                     const int *img, const int *ker, int *out) {
  for (int i = 0; i < oh; i++)
    for (int j = 0; j < ow; j++) {
      int acc = bias;
      for (int a = 0; a < kh; a++)
        for (int b = 0; b < kw; b++)
          acc += img[(i + a) * iw + j + b] * ker[a * kw + b];
      out[i * ow + j] = acc;
    }
}
