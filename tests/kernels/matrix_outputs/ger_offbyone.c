/* ger reading y one element further (a mutant of ger). */
void ger_offbyone(int m, int n, int *a, int *x, int *y) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) a[j + i * n] += x[i] * y[j + 1];
}
