#include <stddef.h>
void countdown_idx(const float *x, float *y, size_t n)
{
    size_t i = n;
    while (i > 0) {
        i--;
        y[i] = x[i] + 1.0f;
    }
}
