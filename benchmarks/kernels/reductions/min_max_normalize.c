/* Min-max normalisation: a minimum loop, a maximum loop, then a map. */
void min_max_normalize(float *x, float *out, int n) {
  float lo = x[0];
  for (int i = 1; i < n; i++) if (x[i] < lo) lo = x[i];
  float hi = x[0];
  for (int i = 1; i < n; i++) if (x[i] > hi) hi = x[i];
  float scale = 1.0f / (hi - lo + 1e-6f);
  for (int i = 0; i < n; i++) out[i] = (x[i] - lo) * scale;
}
