#include <math.h>
float l1_fabsf(const float *x, int n) {
  float s = 0;
  for (int i = 0; i < n; i++) s += fabsf(x[i]);
  return s;
}
