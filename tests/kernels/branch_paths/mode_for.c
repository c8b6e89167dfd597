/* An if / else-if chain around for loops: the function splits into three paths. */
void mode_for(const int *a, int mode, int *out, int n) {
  int m = mode % 3;
  if (m == 0) {
    for (int i = 0; i < n; i++) out[i] = a[i] + 1;
  } else if (m == 1) {
    for (int i = 0; i < n; i++) out[i] = a[i] * a[i];
  } else {
    for (int i = 0; i < n; i++) out[i] = -a[i];
  }
}
