#include <math.h>
/* a sum of powers with a parameter exponent, then its root: a p-norm */
double pow_sum(int n, const double *x, double p) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += pow(fabs(x[i]), p);
  return pow(s, 1.0 / p);
}
