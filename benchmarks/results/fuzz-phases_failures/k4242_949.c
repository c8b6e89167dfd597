// fuzz failure: VERIFIED-BUT-WRONG
// generated code raised OverflowError: Python integer 4648306817912973578 out of bounds for uint8
// summary: return = cast(((100.0 + reduce_sum(cast(tensor_scalar(tensor_scalar(tensor_scalar(slice(a, 1, (n + 1)), k, -), 4294967295, /), select(k != 0, k, 1), /), double))) / cast(n, double)), int)
// summary: out[0:n] = full(n, cast((k + k), uint8))
// input: {"a": [64, 114, 3], "b": [100, 11, 20], "out": [3], "k": 4648306817912973445, "n": 1}
// reference output: {"ret": 100, "a": [64, 114, 3], "b": [100, 11, 20], "out": [10]}
// generated output: null
#include <stdint.h>
#include <stddef.h>
long k4242_949(uint8_t *a, uint8_t *b, uint8_t *out, int64_t k, long n) {
  double s = 100.0f;
  for (int i = 0; i < n; i += 1) {
    out[i] = ((k + k));
    s = s + ((a[i + 1] - k) / (4294967295)) / (k != 0 ? k : 1);
  }
  return s / n;
}
