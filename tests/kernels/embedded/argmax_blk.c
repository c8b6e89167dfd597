#include <stdint.h>

/* Largest sample and its first index: the count runs down, the index is computed from it. */
void argmax_blk(const float *x, uint32_t n, float *best, uint32_t *where)
{
    const float *p = x;
    float m = *p++;
    uint32_t at = 0U;
    uint32_t k = n - 1U;
    while (k > 0U) {
        float v = *p++;
        if (m < v) {
            m = v;
            at = n - k;
        }
        k--;
    }
    *best = m;
    *where = at;
}
