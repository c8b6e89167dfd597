// "valid" 2-D correlation of an image (ih x iw, row-major) with a k x k kernel:
// out[i][j] = sum_{a,b} img[i + a][j + b] * ker[a][b], for an (ih-k+1) x (iw-k+1) output
void conv2d_valid(int oh, int ow, int k, const float *img, const float *ker, float *out) {
  int iw = ow + k - 1;
  for (int i = 0; i < oh; i++) {
    for (int j = 0; j < ow; j++) {
      float acc = 0.0f;
      for (int a = 0; a < k; a++)
        for (int b = 0; b < k; b++)
          acc += img[(i + a) * iw + (j + b)] * ker[a * k + b];
      out[i * ow + j] = acc;
    }
  }
}
