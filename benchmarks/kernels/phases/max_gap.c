/* The gap between the largest elements of two arrays: two maximum loops. */
int max_gap(int *a, int *b, int n) {
  int ma = a[0];
  for (int i = 1; i < n; i++) if (a[i] > ma) ma = a[i];
  int mb = b[0];
  for (int i = 1; i < n; i++) mb = b[i] > mb ? b[i] : mb;
  return ma - mb;
}
