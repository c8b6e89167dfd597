#include <math.h>
void softmax(float *x, float *out, int n) {
  float m = x[0];
  for (int i = 1; i < n; i++) { if (x[i] > m) m = x[i]; }
  float s = 0.0f;
  for (int i = 0; i < n; i++) { out[i] = expf(x[i] - m); s += out[i]; }
  for (int i = 0; i < n; i++) { out[i] = out[i] / s; }
}
