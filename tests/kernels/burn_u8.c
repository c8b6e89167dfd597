#include <stdint.h>
void burn_u8(uint8_t *base, uint8_t *active, uint8_t *out, int n) {
  for (int i = 0; i < n; i++) {
    if (active[i] == 0) out[i] = 255;
    else out[i] = 255 - (255 - base[i]) / active[i];
  }
}
