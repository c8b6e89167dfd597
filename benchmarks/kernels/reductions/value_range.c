/* The range of an array: a maximum loop and a minimum loop. */
int value_range(int *a, int n) {
  int hi = a[0];
  for (int i = 1; i < n; i++) if (a[i] > hi) hi = a[i];
  int lo = a[0];
  for (int i = 1; i < n; i++) if (a[i] < lo) lo = a[i];
  return hi - lo;
}
