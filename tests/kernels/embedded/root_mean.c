#include <math.h>

typedef enum { ROOT_OK = 0, ROOT_NEGATIVE = -1 } root_status;

/* Square root written through a pointer; a negative argument gives 0 and a status. */
static inline root_status root_to(float v, float *dst)
{
    if (v >= 0.0f) {
        *dst = sqrtf(v);
        return ROOT_OK;
    } else {
        *dst = 0.0f;
        return ROOT_NEGATIVE;
    }
}

/* Root of the mean; the status of the root is discarded. */
void root_mean(const float *x, unsigned n, float *res)
{
    float s = 0.0f;
    for (unsigned i = 0; i < n; i++)
        s += x[i];
    root_to(s / (float) n, res);
}
