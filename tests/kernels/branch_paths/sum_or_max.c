/* A returned reduction chosen by a flag: a sum on one path, a running maximum on the other. */
int sum_or_max(const int *a, int n, int want_max) {
  int r;
  if (want_max) {
    r = a[0];
    for (int i = 1; i < n; i++) r = a[i] > r ? a[i] : r;
  } else {
    r = 0;
    for (int i = 0; i < n; i++) r += a[i];
  }
  return r;
}
