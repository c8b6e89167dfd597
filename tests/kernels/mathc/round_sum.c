#include <math.h>
/* a sum of rounded doubles (roundf and round) */
double round_sum(int n, const double *x, const float *y) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += round(x[i]) + roundf(y[i]);
  return s;
}
