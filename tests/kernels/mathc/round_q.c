#include <math.h>
/* C's round (halfway cases away from zero) of a scaled value, stored as an int */
void round_q(int n, const float *x, float s, int *q) {
  for (int i = 0; i < n; i++) q[i] = (int) round(x[i] * s);
}
