#include <math.h>
void rotate_cosf(float *out, const float *x, const float *y, const float *t, int n) {
  for (int i = 0; i < n; i++) out[i] = x[i] * cosf(t[i]) - y[i] * sinf(t[i]);
}
