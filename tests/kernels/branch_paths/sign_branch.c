/* A branch on the sign bit of a narrow parameter, fixed before the loops, around two
   counted-down while loops that walk pointers (the shape of shipped fixed-point kernels). */
#include <stdint.h>

void sign_branch(const int *src, int8_t amount, int *dst, uint32_t count) {
  uint32_t left;
  int8_t k = amount + 1;
  int8_t sign = (k & 0x80);
  left = count;
  if (sign == 0U) {
    while (left > 0U) {
      *dst++ = *src++ * 3 + k;
      left--;
    }
  } else {
    while (left > 0U) {
      *dst++ = *src++ - k;
      left--;
    }
  }
}
