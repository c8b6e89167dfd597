// uint8 running maximum.
// expect: sound
#include <stdint.h>
uint8_t u8_max(const uint8_t *a, int n) {
    uint8_t m = 0;
    for (int i = 0; i < n; i++)
        if (a[i] > m) m = a[i];
    return m;
}
