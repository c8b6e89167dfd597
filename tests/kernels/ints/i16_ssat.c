// CMSIS-style __SSAT(x, 16) written out as ifs.
// expect: verified "32767"
#include <stdint.h>
void i16_ssat(const int16_t *a, const int16_t *b, int16_t *out, int n) {
    for (int i = 0; i < n; i++) {
        int s = a[i] + b[i];
        if (s > 32767) s = 32767;
        else if (s < -32768) s = -32768;
        out[i] = (int16_t)s;
    }
}
