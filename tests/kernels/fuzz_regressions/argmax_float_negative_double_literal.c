// fuzz regression (VERIFIED-BUT-WRONG at e95f847; found by the product/argmax campaign, seed 2612,
// as 'float m = -1e+30; ... if (a[i] + b[i] >= m)', benchmarks/results/fuzz-argmax-product.seed2612.md):
// 'float m = -0.1;' rounds the double -0.1 to float (-0.10000000149011612), but the summary
// compares the maximum with the unrounded double: select(reduce_max(a) >= -0.1, argmax_last(a), -1)
// (NumPy: np.float64(max) >= -0.1). A positive literal (m = 0.1) is rounded (np.float32(0.1)):
// only a negated literal loses its float rounding.
// fuzz-spec: {"exact_return": true}
// input: {"a": [-0.10000000149011612], "n": 1}
// gcc -O0 -fwrapv / -O2:  return 0
// generated NumPy:        return -1
int f(float *a, int n) {
  int best = -1;
  float m = -0.1;
  for (int i = 0; i < n; i++) {
    if (a[i] >= m) {
      m = a[i];
      best = i;
    }
  }
  return best;
}
