// uint16 widened to unsigned int and shifted left by 4.
// expect: verified "uint32"
#include <stdint.h>
void shl4(const uint16_t *a, uint32_t *out, int n) {
    for (int i = 0; i < n; i++)
        out[i] = (uint32_t)a[i] << 4;
}
