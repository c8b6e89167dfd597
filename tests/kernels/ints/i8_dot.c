// int8 dot product accumulated in int32.
// expect: verified "reduce_sum"
#include <stdint.h>
int32_t i8_dot(const int8_t *a, const int8_t *b, int n) {
    int32_t acc = 0;
    for (int i = 0; i < n; i++)
        acc += a[i] * b[i];
    return acc;
}
