/* Two loop phases: x is updated, then w reads the updated x. The summary states both as
 * functions of the initial arrays, so Gemmini must not overwrite x before w's sum reads it. */
void chained_sums_int(int n, int *x, int *y, int *w) {
  for (int i = 0; i < n; i++) x[i] = x[i] + y[i];
  for (int i = 0; i < n; i++) w[i] = w[i] + x[i];
}
