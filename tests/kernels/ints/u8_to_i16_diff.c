// difference of uint8 values narrowed to int16.
// expect: verified "int16"
#include <stdint.h>
void u8_to_i16_diff(const uint8_t *a, const uint8_t *b, int16_t *out, int n) {
    for (int i = 0; i < n; i++)
        out[i] = (int16_t)(a[i] - b[i]);
}
