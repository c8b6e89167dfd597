int parm(int *a, int *c, int n) {
  int s = 0;
  for (int i = 0; i < n; i++) s += a[i];
  n = n - 1;
  for (int i = 0; i < n; i++) c[i] = a[i] * s;
  return s + n;
}
