/* Refused: the condition reads an array element. */
void refuse_array_cond(const int *a, int *out, int n) {
  if (a[0] > 0) {
    for (int i = 0; i < n; i++) out[i] = a[i];
  } else {
    for (int i = 0; i < n; i++) out[i] = 0;
  }
}
