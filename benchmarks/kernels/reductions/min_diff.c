/* The smallest difference a[i] - b[i], starting from a large sentinel. */
float min_diff(float *a, float *b, int n) {
  float m = 1e30f;
  for (int i = 0; i < n; i++) m = (a[i] - b[i]) < m ? (a[i] - b[i]) : m;
  return m;
}
