/* A shift by a run-time count whose direction is chosen by the count's sign bit: left shift
   with saturation to 16 bits on one path, arithmetic right shift on the other. */
#include <stdint.h>

static int32_t sat16(int32_t x) {
  if (x > 32767) return 32767;
  if (x < -32768) return -32768;
  return x;
}

void shift_sign(const int16_t *src, int8_t bits, int16_t *dst, uint32_t count) {
  uint8_t sign = (bits & 0x80);
  uint32_t left = count;
  if (sign == 0U) {
    while (left > 0U) {
      *dst++ = (int16_t) sat16(((int32_t) *src++) << bits);
      left--;
    }
  } else {
    while (left > 0U) {
      *dst++ = (int16_t) (*src++ >> -bits);
      left--;
    }
  }
}
