// from k3702_198 (fuzz seed 3702, default mix, HEAD f5b1c4d; also at f335612)
// summary: return = cast((cast(reduce_sum(tensor_scalar(scalar_tensor(-2, take(a, n), +), 2, /)), uint8) % 7), uint8)
// generated: np.uint8((np.uint8(...) % 7) % 256)   <- a NumPy uint8 % 256: OverflowError (NEP 50)
// C: 0 for n = 0; generated: OverflowError: Python integer 256 out of bounds for uint8
// input: {"a": [], "b": [], "n": 0}
#include <stdint.h>
#include <stddef.h>
unsigned char k3702_198(uint8_t *a, uint8_t *b, long n) {
  unsigned char s = 0x100;
  for (int i = 0; i < n; i = i + 1) {
    s = s + (-2LL + a[i]) / 2;
  }
  return s % 7;
}
