// minimised from k4242_1093 (fuzz-phases campaign, HEAD 32c1d3d; still reproduces at 5533217)
// python -m tenspiler.fuzz.campaign benchmarks/results/fuzz-phases_failures/min_hoisted_int_overflow.c
// summary: out[0:n] = scalar_tensor((2 * k), take(a, n), *)   (the loop runs no iteration: C never computes 2 * k)
// generated: (2 * k) * a[:n] -- the exact Python int 2**64 - 2 meets an int64 array: OverflowError
// input: {"a": [], "out": [], "k": 9223372036854775807, "n": 0}
void min_hoisted_int_overflow(long *a, long *out, long k, int n) {
  for (int i = 0; i < n; i++) out[i] = 2 * k * a[i];
}
