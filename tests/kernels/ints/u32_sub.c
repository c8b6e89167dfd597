// unsigned int subtraction wraps below 0.
// expect: verified "uint32"
#include <stdint.h>
void u32_sub(const uint32_t *a, const uint32_t *b, uint32_t *out, int n) {
    for (int i = 0; i < n; i++)
        out[i] = a[i] - b[i];
}
