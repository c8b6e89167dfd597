static void scale_add(int n, float a, const float *x, float *y) {
  for (int i = 0; i < n; i++) {
    *y = a * *x + *y;
    x++;
    y++;
  }
}
void helper_walk(float *y, const float *x, float a, int n) {
  scale_add(n, a, x, y);
}
