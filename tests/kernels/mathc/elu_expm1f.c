#include <math.h>
void elu_expm1f(float *x, int n) {
  for (int i = 0; i < n; i++) x[i] = x[i] >= 0 ? x[i] : expm1f(x[i]);
}
