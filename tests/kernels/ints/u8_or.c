// uint8 data promoted to int, or-ed with a constant and stored back modulo 256.
// expect: verified "|"
#include <stdint.h>
void u8_or(const uint8_t *a, uint8_t *out, int n) {
    for (int i = 0; i < n; i++)
        out[i] = a[i] | 0x81;
}
