#include <math.h>
void softmax_exp(float *x, float *out, float max_val, int n) {
  for (int i = 0; i < n; i++) out[i] = expf(x[i] - max_val);
}
