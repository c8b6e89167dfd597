#include <stdint.h>
void overlay_u8(uint8_t *base, uint8_t *active, uint8_t *out, int n) {
  for (int i = 0; i < n; i++) {
    if (base[i] >= 128) out[i] = 2 * base[i] + base[i] - 2 * base[i] * base[i] / 255 - 255;
    else out[i] = 2 * base[i] * base[i] / 255;
  }
}
