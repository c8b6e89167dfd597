#include <stdint.h>
void lighten_u8(uint8_t *base, uint8_t *active, uint8_t *out, int n) {
  for (int i = 0; i < n; i++) {
    if (base[i] < active[i]) out[i] = active[i];
    else out[i] = base[i];
  }
}
