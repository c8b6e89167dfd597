#include <math.h>
void gelu_tanhf(float *x, int n) {
  for (int i = 0; i < n; i++) {
    float v = x[i];
    x[i] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * powf(v, 3))));
  }
}
