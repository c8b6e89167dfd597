// fuzz-spec: {"extents": {"b": "n", "c": "n"}}
int f(int *a, int *b, int *c, int n) {
  int s = 0;
  for (int i = 0; i < n; i++) s += a[i];
  int k = s;
  for (int i = 0; i < n; i++) b[i] = a[i];
  for (int i = 0; i < k; i++) c[i] = 7;
  return k;
}
