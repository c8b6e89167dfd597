/* Not lifted yet: only one path writes the output (the other leaves it unchanged). */
void one_armed(const int *a, int *out, int n, int on) {
  if (on > 0) {
    for (int i = 0; i < n; i++) out[i] = a[i] * 2;
  }
}
