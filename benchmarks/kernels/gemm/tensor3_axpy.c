// a 3-D tensor (D x H x W, flattened row-major): out = alpha * x + y
void tensor3_axpy(int D, int H, int W, float alpha, float *x, float *y, float *out) {
  for (int d = 0; d < D; d++)
    for (int h = 0; h < H; h++)
      for (int w = 0; w < W; w++)
        out[(d * H + h) * W + w] = alpha * x[(d * H + h) * W + w] + y[(d * H + h) * W + w];
}
