/* Clamp from the end, with the bound written lo <= i. */
void clamp_down(float *x, float *out, float lo_v, float hi_v, int n) {
  for (int i = n - 1; 0 <= i; i = i - 1) out[i] = x[i] < lo_v ? lo_v : (x[i] > hi_v ? hi_v : x[i]);
}
