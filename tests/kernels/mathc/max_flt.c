#include <float.h>
float max_flt(const float *x, int n) {
  float largest = -FLT_MAX;
  for (int i = 0; i < n; ++i) {
    if (x[i] > largest) largest = x[i];
  }
  return largest;
}
