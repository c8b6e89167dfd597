/* The second loop runs one element further than the first wrote. */
void mutant_bound(int *a, int *b, int *c, int *d, int n) {
  for (int i = 0; i < n; i++) c[i] = a[i] + b[i];
  for (int i = 0; i <= n; i++) d[i] = c[i] * a[i];
}
