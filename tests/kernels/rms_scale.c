#include <math.h>
void rms_scale(float *o, float *x, float *w, float ss, int size) {
  float s = 1.0f / sqrtf(ss / size + 1e-5f);
  for (int j = 0; j < size; j++) o[j] = w[j] * (s * x[j]);
}
