// uint8 saturating add written out as an if: a select (clamp).
// expect: verified "255"
#include <stdint.h>
void u8_add_sat(uint8_t *a, uint8_t *b, uint8_t *out, int n) {
    for (int i = 0; i < n; i++) {
        int s = a[i] + b[i];
        if (s > 255) s = 255;
        out[i] = s;
    }
}
