// unsigned int xor of a product with data: x ^ (y * 0x9E3779B9u), both reduced modulo 2^32.
// expect: verified "^"
#include <stdint.h>
void u32_xor_mix(const uint32_t *x, const uint32_t *y, uint32_t *out, int n) {
    for (int i = 0; i < n; i++)
        out[i] = x[i] ^ (y[i] * 0x9E3779B9u);
}
