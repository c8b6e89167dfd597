#include <stdint.h>
void screen_u8(uint8_t *base, uint8_t *active, uint8_t *out, int n) {
  for (int i = 0; i < n; ++i) out[i] = base[i] + active[i] - (base[i] * active[i]) / 255;
}
