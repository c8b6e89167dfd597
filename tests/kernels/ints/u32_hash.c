// uint32 polynomial hash h = h*31u + x[i]: unsigned int arithmetic wraps modulo 2^32 (modelled); no TensIR summary for Horner.
// expect: sound
#include <stdint.h>
uint32_t u32_hash(const uint8_t *x, int n) {
    uint32_t h = 0;
    for (int i = 0; i < n; i++)
        h = h * 31u + x[i];
    return h;
}
