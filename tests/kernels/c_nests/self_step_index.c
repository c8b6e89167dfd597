/* An index temporary stepped after it is set (t = t + 1): a later read of t is the new value. */
void f(float *x, const float *y, int B, int N) {
  for (int b = 0; b < B; b++)
    for (int i = 0; i < N; i++)
      for (int k = 0; k < 2; k++) {
        int t = b*N*2 + i*2 + k - 1;
        t = t + 1;
        x[t] = y[t] * 2.0f;
      }
}
