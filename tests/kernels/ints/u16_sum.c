// uint16 data promoted to int and summed.
// expect: verified "reduce_sum"
#include <stdint.h>
int u16_sum(const uint16_t *a, int n) {
    int s = 0;
    for (int i = 0; i < n; i++)
        s += a[i];
    return s;
}
