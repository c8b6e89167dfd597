/* ger with the operands' indices swapped: x[j] * y[i] (a mutant of ger). */
void ger_swapped(int m, int n, int *a, int *x, int *y) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) a[j + i * n] += x[j] * y[i];
}
