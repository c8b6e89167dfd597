/* A mutant of min_int: the loop starts one element later. */
int min_from_two(int *a, int n) {
  int m = a[0];
  for (int i = 2; i < n; i++) if (a[i] < m) m = a[i];
  return m;
}
