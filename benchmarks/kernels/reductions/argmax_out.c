// index and value of the largest element, written into out[k] and val[k]
void argmax_out(int n, int k, const int *a, int *out, int *val) {
  int best = -1;
  int m = -2147483647;
  for (int i = 0; i < n; i++) {
    if (a[i] > m) {
      m = a[i];
      best = i;
    }
  }
  out[k] = best;
  val[k] = m;
}
