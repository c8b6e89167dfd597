// uint32 checksum s += x[i]: the sum wraps modulo 2^32 at every step.
// expect: verified "uint32"
#include <stdint.h>
uint32_t u32_checksum(const uint32_t *x, int n) {
    uint32_t s = 0;
    for (int i = 0; i < n; i++)
        s += x[i];
    return s;
}
