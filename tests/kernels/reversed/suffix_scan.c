/* A suffix sum computed from the end: iteration i reads what iteration i + 1 wrote, so the
   iterations do not commute (a true recurrence, refused). */
void suffix_scan(int *a, int *b, int n) {
  for (int i = n - 2; i >= 0; i--) b[i] = b[i + 1] + a[i];
}
