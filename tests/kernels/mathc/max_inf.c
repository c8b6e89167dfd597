#include <math.h>
float max_inf(const float *x, int n) {
  float m = -INFINITY;
  for (int i = 0; i < n; ++i) m = x[i] > m ? x[i] : m;
  return m;
}
