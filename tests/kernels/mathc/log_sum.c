#include <math.h>
double log_sum(const double *p, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += p[i] * log(p[i]);
  return -s;
}
