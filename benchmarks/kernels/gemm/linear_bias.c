// a fully connected layer: Y = X * W + bias, bias added per output column
void linear_bias(int batch, int in_f, int out_f, float *X, float *W, float *bias, float *Y) {
  for (int b = 0; b < batch; b++) {
    for (int o = 0; o < out_f; o++) {
      float y = bias[o];
      for (int f = 0; f < in_f; f++)
        y += X[b * in_f + f] * W[f * out_f + o];
      Y[b * out_f + o] = y;
    }
  }
}
