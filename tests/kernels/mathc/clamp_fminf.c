#include <math.h>
void clamp_fminf(float *y, const float *x, float lo, float hi, int n) {
  for (int i = 0; i < n; i++) y[i] = fminf(fmaxf(x[i], lo), hi);
}
