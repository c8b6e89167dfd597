// unsigned int multiply by a U literal: the product exceeds 64 bits, reduced modulo 2^32.
// expect: verified "uint32"
#include <stdint.h>
void u32_mul_lit(const uint32_t *a, uint32_t *out, int n) {
    for (int i = 0; i < n; i++)
        out[i] = a[i] * 2654435761u;
}
