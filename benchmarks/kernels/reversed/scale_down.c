/* An elementwise map written as a descending loop. */
void scale_down(int *a, int *b, int n) {
  for (int i = n - 1; i >= 0; i--) b[i] = a[i] * 3;
}
