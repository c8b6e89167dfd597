#include <stdint.h>

/* Largest sample and its first index: the count runs down, the index is computed from it. */
void argmax_blk_i8(const int8_t *x, uint32_t n, int8_t *best, uint32_t *where)
{
    const int8_t *p = x;
    int8_t m = *p++;
    uint32_t at = 0U;
    uint32_t k = n - 1U;
    while (k > 0U) {
        int8_t v = *p++;
        if (m < v) {
            m = v;
            at = n - k;
        }
        k--;
    }
    *best = m;
    *where = at;
}
