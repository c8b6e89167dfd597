/* The second loop reads only elements the first did not write: the entry values. */
void read_before_disjoint(int *a, int *b, int *c, int n) {
  for (int i = 0; i < 4; i++) a[i] = b[i] + 1;
  for (int i = 0; i < n; i++) c[i] = a[i + 4] * 2;
}
