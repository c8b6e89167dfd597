// fuzz failure (fixed): VERIFIED-BUT-WRONG: c += s[i] of an unsigned int local and a long is
// computed in long and stored modulo 2^32; the model divided before reducing.
// out[0]: C 0, generated 1431655766 for s = {LONG_MIN}, n = 1
#include <stddef.h>
#include <stdint.h>

void k91_5(const long *s, uint32_t *out, uint32_t n) {
  for (int i = 0; i < n; i++) {
    uint32_t c = s[i];
    c += s[i];
    out[i] = c / 3U;
  }
}
