// the sum over the last axis: out[p][r] = sum_c x[p][r][c]
void sum_axis2(int P, int R, int C, const double *x, double *out) {
  for (int p = 0; p < P; p++)
    for (int r = 0; r < R; r++) {
      double s = 0.0;
      for (int c = 0; c < C; c++)
        s += x[(p * R + r) * C + c];
      out[p * R + r] = s;
    }
}
