/* A minimum of long values: -LONG_MIN leaves int64, so the negated maximum is not emitted. */
long min_long(long *a, int n) {
  long m = a[0];
  for (int i = 1; i < n; i++) if (a[i] < m) m = a[i];
  return m;
}
