#include <math.h>
float square_powf(float *x, int n) {
  float sum = 0;
  for (int i = 0; i < n; ++i) sum += powf(x[i], 2);
  return sum;
}
