#include <stdint.h>
void darken_u8(uint8_t *base, uint8_t *active, uint8_t *out, int n) {
  for (int i = 0; i < n; i++) out[i] = base[i] > active[i] ? active[i] : base[i];
}
