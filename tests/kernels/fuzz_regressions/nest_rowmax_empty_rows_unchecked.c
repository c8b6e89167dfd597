// fuzz regression (PRECONDITION-NOT-CHECKED at 42b169a): the proof of a row maximum assumes
// "the inner loop runs at least once (a row maximum of an empty row is undefined): 1 <= n";
// the generated NumPy does not check it: with n = 0 C keeps s = -1 and stores 255, the
// generated code stores 256. Found by benchmarks/fuzz.py (seed 2026, k2026_125), verbatim.
// fuzz-spec: {"extents": {"A": "m * n", "out": "m"}}
// input: {"A": [], "out": [12, 2, 6479148497907468522], "m": 3, "n": 0}
// gcc -O0 -fwrapv / -O2:  out = [255, 255, 255]
// generated NumPy:        out = [256, 256, 256]
#include <stdint.h>
#include <stddef.h>
void k2026_125(uint8_t *A, long *out, int m, int n) {
  for (int i = 0; i < m; i++) {
    long s = -1;
    for (int j = 0; j < n; j++) {
      if (A[i*n+j] > s) s = A[i*n+j];
    }
    out[i] = s + 256LL;
  }
}
