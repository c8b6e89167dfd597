#include <math.h>
/* powf with a fractional constant exponent and pow of a double by an array of exponents */
void pow_frac(int n, float *x, double *e, double *b, float *y, double *z) {
  for (int i = 0; i < n; ++i) {
    y[i] = powf(x[i], 2.5f);
    z[i] = pow(b[i], e[i]);
  }
}
