// ~a on uint8: promoted to int, -1 - a, stored modulo 256.
// expect: verified "uint8"
#include <stdint.h>
void not_u8(const uint8_t *a, uint8_t *out, int n) {
    for (int i = 0; i < n; i++)
        out[i] = ~a[i];
}
