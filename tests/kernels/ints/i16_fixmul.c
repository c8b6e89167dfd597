// int16 Q15 fixed-point multiply (a*b) >> 15: arithmetic shift of a negative int floors (GCC), the store into int16 wraps.
// expect: verified "int16"
#include <stdint.h>
void i16_fixmul(const int16_t *a, const int16_t *b, int16_t *out, int n) {
    for (int i = 0; i < n; i++)
        out[i] = (a[i] * b[i]) >> 15;
}
