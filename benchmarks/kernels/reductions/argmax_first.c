// index of the first largest element (C's first-index rule: strict >)
int argmax_first(int n, int *a) {
  int best = 0;
  int m = a[0];
  for (int i = 1; i < n; i++) {
    if (a[i] > m) {
      m = a[i];
      best = i;
    }
  }
  return best;
}
