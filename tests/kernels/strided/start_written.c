/* The start of a strided loop read from a variable the body writes: refused. */
int start_written(int *a, int n) {
  int s = 0;
  int i;
  for (i = s; i < n; i += 2) s += a[i];
  return s;
}
