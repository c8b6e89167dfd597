/* two_outputs with the second loop reading c one element further: c[n] was not written. */
void mutant_index(int *a, int *b, int *c, int *d, int n) {
  for (int i = 0; i < n; i++) c[i] = a[i] + b[i];
  for (int i = 0; i < n; i++) d[i] = c[i + 1] * a[i];
}
