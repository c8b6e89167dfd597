float register_dot(const float *a, const float *b, int n) {
  register float sum = 0;
  register int i;
  for (i = 0; i < n; ++i) sum += a[i] * b[i];
  return sum;
}
