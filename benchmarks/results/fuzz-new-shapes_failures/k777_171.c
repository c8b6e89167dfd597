// fuzz failure: VERIFIED-BUT-WRONG
// return value: C 0, generated 255
// summary: return = cast(((0 - select((n - 1) > 1, select(reduce_max(scalar_tensor(0, slice(a, 2, n), -)) > (0 - reduce_sum(slice(a, (n - 1), n))), reduce_max(scalar_tensor(0, slice(a, 2, n), -)), (0 - reduce_sum(slice(a, (n - 1), n)))), (0 - reduce_sum(slice(a, (n - 1), n))))) / n), uint8)
// summary: out[1:(n - 1)] = tensor_scalar(scalar_tensor(2147483647, iota(1, (n - 1)), *), 127, -)
// input: {"a": [-9223372036854775807, 9, -9223372036854775808, -12, 6, 3, -1, 0, -9, -4], "out": [2454402298, -955574067540044, 4, 3298985221031064838, 127, -127, 9223372036854775806, 12], "n": 8}
// reference output: {"ret": 0, "a": [-9223372036854775807, 9, -9223372036854775808, -12, 6, 3, -1, 0, -9, -4], "out": [2454402298, 2147483520, 4294967167, 6442450814, 8589934461, 10737418108, 12884901755, 12]}
// generated output: [255, [2454402298, 2147483520, 4294967167, 6442450814, 8589934461, 10737418108, 12884901755, 12]]
#include <stdint.h>
#include <stddef.h>
uint8_t k777_171(int64_t *a, int64_t *out, int n) {
  int64_t s = a[n - 1];
  for (long i = n - 2; i > 0; i -= 1) {
    out[i] = 017777777777 * i - 127l;
    s = a[i + 1] < s ? a[i + 1] : s;
  }
  return s / n;
}
