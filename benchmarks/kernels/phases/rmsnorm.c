#include <math.h>
void rmsnorm(float *x, float *w, float *out, int n) {
  float ss = 0.0f;
  for (int i = 0; i < n; i++) ss += x[i] * x[i];
  float r = 1.0f / sqrtf(ss / n + 1e-5f);
  for (int i = 0; i < n; i++) out[i] = w[i] * (x[i] * r);
}
