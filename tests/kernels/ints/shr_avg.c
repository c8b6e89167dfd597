// rounding average (a + b + 1) >> 1 on uint8.
// expect: verified "//"
#include <stdint.h>
void shr_avg(const uint8_t *a, const uint8_t *b, uint8_t *out, int n) {
    for (int i = 0; i < n; i++)
        out[i] = (a[i] + b[i] + 1) >> 1;
}
