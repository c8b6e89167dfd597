/* Subtract the mean: a reduction loop, then an elementwise loop reading its result. */
void center(int *x, int *out, int n) {
  int s = 0;
  for (int i = 0; i < n; i++) s += x[i];
  int mean = s / (n + 1);
  for (int i = 0; i < n; i++) out[i] = x[i] - mean;
}
