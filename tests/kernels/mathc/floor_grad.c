/* 0 where x is an integer (floorf(x) == x), else 1, times delta. */
#include <math.h>

void floor_grad(const float *x, float *delta, int n)
{
    for (int i = 0; i < n; ++i) {
        delta[i] *= (floorf(x[i]) == x[i]) ? 0 : 1;
    }
}
