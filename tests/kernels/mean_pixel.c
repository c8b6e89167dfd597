#include <stdint.h>
int pixel_sum(uint8_t *img, int n)
{
    int total = 0;
    for (int i = 0; i < n; i++)
        total += img[i];
    return total;
}
