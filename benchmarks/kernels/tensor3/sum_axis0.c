// the sum over the first axis of a P x R x C array: out[r][c] = sum_p x[p][r][c]
void sum_axis0(int P, int R, int C, const float *x, float *out) {
  for (int r = 0; r < R; r++)
    for (int c = 0; c < C; c++) {
      float s = 0.0f;
      for (int p = 0; p < P; p++)
        s += x[(p * R + r) * C + c];
      out[r * C + c] = s;
    }
}
