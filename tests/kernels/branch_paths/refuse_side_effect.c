/* Refused: the condition has a side effect. */
void refuse_side_effect(const int *a, int *out, int n, int k) {
  if (k++ > 0) {
    for (int i = 0; i < n; i++) out[i] = a[i] + k;
  } else {
    for (int i = 0; i < n; i++) out[i] = 0;
  }
}
