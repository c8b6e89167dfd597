#include <math.h>
void pow_alpha(int n, float alpha, float *x, float *y) {
  for (int i = 0; i < n; ++i) y[i] = pow(x[i], alpha);
}
