#include <stdint.h>

/* Sample variance; fewer than two samples give 0 (stored before the early return). */
void var_guard(const float *x, uint32_t n, float *res)
{
    const float *p = x;
    float s = 0.0f, q = 0.0f, mean;
    uint32_t k;

    if (n <= 1U) {
        *res = 0.0f;
        return;
    }
    k = n;
    while (k > 0U) {
        s += *p++;
        k--;
    }
    mean = s / (float) n;
    p = x;
    k = n;
    while (k > 0U) {
        float d = *p++ - mean;
        q += d * d;
        k--;
    }
    *res = q / (float) (n - 1U);
}
