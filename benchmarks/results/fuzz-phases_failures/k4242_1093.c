// fuzz failure: VERIFIED-BUT-WRONG
// generated code raised OverflowError: Python int too large to convert to C long
// summary: out[0:m] = tensor_scalar(reduce_rows(scalar_tensor((2 * k), matrix(A, m, n), *)), 10, /)
// input: {"A": [], "out": [], "k": 9223372036854775807, "m": 0, "n": 0}
// reference output: {"A": [], "out": []}
// generated output: null
#include <stdint.h>
#include <stddef.h>
void k4242_1093(long *A, long *out, long k, int m, int n) {
  for (int i = 0; i < m; i++) {
    long s = 0;
    for (int j = 0; j < n; j++) {
      s = s + ((2 * k) * A[i * n + j]);
    }
    out[i] = s / 012;
  }
}
