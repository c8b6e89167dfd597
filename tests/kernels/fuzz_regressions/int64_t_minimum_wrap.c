// fuzz regression (VERIFIED-BUT-WRONG at be91c42): a running minimum of int64_t values is
// emitted as the negated maximum of the negated values; -INT64_MIN wraps in int64. The
// wrap-hazard check refuses the same kernel spelled with long (tests/kernels/reductions/
// min_long.c), but codegen/ranges.py c_type_ranges gives a parameter the 64-bit range only
// when its C type contains "long", so int64_t data is taken as 32-bit and no hazard is seen.
// Found by benchmarks/fuzz.py (seed 777, k777_171: descending, a[i + 1] < s ? ..., return
// s / n as uint8_t), minimised by hand.
// input: {"a": [5, -9223372036854775808, 3], "n": 3}
// gcc -O0 -fwrapv / -O2:  -9223372036854775808
// generated NumPy:        3
#include <stdint.h>
int64_t f(int64_t *a, int n) {
  int64_t s = a[0];
  for (int i = 1; i < n; i++) if (a[i] < s) s = a[i];
  return s;
}
