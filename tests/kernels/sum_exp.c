#include <math.h>
float sum_exp(float *x, float m, int n) {
  float sum = 0.0f;
  for (int i = 0; i < n; i++) sum += expf(x[i] - m);
  return sum;
}
