/* Two phases writing two arrays; the second reads what the first wrote. */
void two_outputs(int *a, int *b, int *c, int *d, int n) {
  for (int i = 0; i < n; i++) c[i] = a[i] + b[i];
  for (int i = 0; i < n; i++) d[i] = c[i] * a[i];
}
