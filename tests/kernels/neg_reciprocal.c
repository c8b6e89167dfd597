// C unary minus on floats keeps the sign of zero: 1 / -0.0f is -inf
void neg_reciprocal(int n, float *a, float *out) {
  for (int i = 0; i < n; i++) out[i] = 1.0f / (-a[i]);
}
