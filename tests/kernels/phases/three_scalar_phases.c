int scal3(int *a, int n) {
  int s = 0;
  for (int i = 0; i < n; i++) s += a[i];
  for (int i = 0; i < n; i++) s += 2 * a[i];
  int t = s * 2;
  for (int i = 0; i < n; i++) t -= a[i];
  return t;
}
