/* A float accumulator of double terms: C computes s + pow(..) in double and rounds the sum
 * back to float at every step (exact conversions in the real-number model). */
#include <math.h>
float sq_dev_float(const float *x, int n, float m)
{
    float s = 0;
    for (int i = 0; i < n; i++)
        s += pow(x[i] - m, 2);
    return s;
}
