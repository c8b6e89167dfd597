int sq_every_third(int *a, int n) {
  int s = 0;
  for (int i = 1; i <= n; i = i + 3) s += a[i] * a[i];
  return s;
}
