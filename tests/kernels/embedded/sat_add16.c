#include <stdint.h>

/* Saturate v to a signed field of `bits` bits, written out with if/else. */
static inline int32_t clamp_bits(int32_t v, uint32_t bits)
{
    if ((bits >= 1U) && (bits <= 32U)) {
        const int32_t hi = (int32_t)((1U << (bits - 1U)) - 1U);
        const int32_t lo = -1 - hi;
        if (v > hi) {
            return hi;
        } else if (v < lo) {
            return lo;
        }
    }
    return v;
}

void sat_add16(const int16_t *a, const int16_t *b, int16_t *out, uint32_t n)
{
    uint32_t k = n;
    while (k > 0U) {
        *out++ = (int16_t) clamp_bits((int32_t) *a++ + *b++, 16);
        k--;
    }
}
