// per-plane sums of a flat P x R x C array (a 3-D reduction over the last two axes)
void plane_sums_flat(int P, int R, int C, const double *x, double *out) {
  for (int p = 0; p < P; p++) {
    double s = 0.0;
    for (int r = 0; r < R; r++)
      for (int c = 0; c < C; c++)
        s += x[(p * R + r) * C + c];
    out[p] = s;
  }
}
