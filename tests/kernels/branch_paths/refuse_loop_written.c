/* Refused: the condition reads a variable a loop before it writes. */
void refuse_loop_written(const int *a, int *out, int n) {
  int s = 0;
  for (int i = 0; i < n; i++) s += a[i];
  if (s > 0) {
    for (int i = 0; i < n; i++) out[i] = a[i];
  } else {
    for (int i = 0; i < n; i++) out[i] = 0;
  }
}
