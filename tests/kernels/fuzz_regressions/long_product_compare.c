// fuzz regression (VERIFIED-BUT-WRONG at 4d3f95c): the synthesised summary replaces
// A / A > 0 (A != 0) by A * A > 0 -- equal over the mathematical integers the proof uses,
// but A * A wraps in int64 for long A = LONG_MIN, and the comparison then fails.
// Found by benchmarks/fuzz.py (seed 2027, k2027_1581), minimised by hand.
// fuzz-spec: {"extents": {"A": "m * n", "out": "m"}, "shape": "2d"}
// input: {"A": [-1, 3, -9223372036854775808, 9], "out": [9, -10], "m": 2, "n": 2}
// gcc -O0 -fwrapv / -O2:  out = [20, 20]
// generated NumPy:        out = [20, 10]
void f(long *A, long *out, int m, int n) {
  for (int i = 0; i < m; i++) {
    long s = 0;
    for (int j = 0; j < n; j++) {
      if (A[i*n+j] != 0 && A[i*n+j] / A[i*n+j] > 0) s += 10;
    }
    out[i] = s;
  }
}
