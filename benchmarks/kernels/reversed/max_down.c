/* A running maximum scanned from the end. */
int max_down(int *a, int n) {
  int m = a[n - 1];
  for (int i = n - 2; i >= 0; i -= 1) if (a[i] > m) m = a[i];
  return m;
}
