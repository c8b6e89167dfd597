// uint8 saturating subtract written as a ternary.
// expect: verified "0"
#include <stdint.h>
void u8_sub_sat(uint8_t *a, uint8_t *b, uint8_t *out, int n) {
    for (int i = 0; i < n; i++) {
        int d = a[i] - b[i];
        out[i] = d < 0 ? 0 : d;
    }
}
