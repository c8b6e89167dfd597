/* A scalar of the first loop changed by straight-line code, then read by the second. */
int scalar_reassigned(int *a, int *out, int n) {
  int s = 0;
  for (int i = 0; i < n; i++) s += a[i];
  s = s * 2 + 1;
  for (int i = 0; i < n; i++) out[i] = a[i] - s;
  return s;
}
