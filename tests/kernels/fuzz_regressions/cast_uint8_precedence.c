// minimised from k4242_949 (fuzz-phases campaign, HEAD 32c1d3d; still reproduces at 5533217)
// python -m tenspiler.fuzz.campaign benchmarks/results/fuzz-phases_failures/min_cast_uint8_precedence.c
// summary: out[0:n] = tensor_scalar(take(a, n), cast((k + k), uint8), +)
// generated: _store(out, 0, n, a[:n] + (k + k % 256), fresh=True)   <- should be ((k + k) % 256)
// C: out = [145] (200 + 200 = 400 -> (uint8_t) 144, + 1); generated: [401]; no UB on this input
// input: {"a": [1], "out": [0], "k": 200, "n": 1}
#include <stdint.h>
void min_cast_uint8_precedence(int *a, int *out, int k, int n) {
  for (int i = 0; i < n; i++) out[i] = a[i] + (uint8_t)(k + k);
}
