// a float accumulator updated in both branches of an if: s + (c ? F1 : -F2)
float cond_accumulate(const float *a, const float *b, int n) {
  float s = 0;
  for (int i = 0; i < n; i++) {
    if (a[i] > 0) s += b[i];
    else s -= b[i] * 2;
  }
  return s;
}
