/* A staircase built from floor, an (int) conversion of it and %: exact in the model. */
#include <math.h>

static inline float stair(float x)
{
    int n = floor(x);
    if (n % 2 == 0) return floor(x / 2.);
    else return (x - n) + floor(x / 2.);
}

void floor_stair(float *x, const int n)
{
    for (int i = 0; i < n; ++i) {
        x[i] = stair(x[i]);
    }
}
