// fuzz failure: VERIFIED-BUT-WRONG
// generated code raised OverflowError: Python int too large to convert to C long
// summary: out[0:(n - 1)] = select(take(a, (n - 1)) < 1, (256 * k), take(out, (n - 1)))
// input: {"a": [7, 65536, 1, 127], "out": [256, 255, 256], "k": 5064819248455681394, "n": 3}
// reference output: {"a": [7, 65536, 1, 127], "out": [256, 255, 256]}
// generated output: null
#include <stdint.h>
#include <stddef.h>
static int64_t clampv(int64_t a, int64_t b) { return (128); }
void k777_46(int64_t *a, int64_t *out, int64_t k, int n) {
  int i;
  for (i = n - 2; 0 <= i; i--) {
    if (a[i] < 1) out[i] = (256 * k);
  }
}
