#include <stdint.h>

/* Mean of n int16 samples, the count converted to int32_t by an explicit cast. */
void mean_blk_i16(const int16_t *x, uint32_t n, int16_t *res)
{
    int32_t acc = 0;
    uint32_t k = n;
    while (k > 0U) {
        acc += *x++;
        k--;
    }
    *res = (int16_t) (acc / (int32_t) n);
}
