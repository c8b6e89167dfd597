int bounddep(int *a, int *c, int n) {
  int m = 0;
  for (int i = 0; i < n; i++) m += 1;
  int s = 0;
  for (int i = 0; i < m; i++) s += a[i];
  return s;
}
