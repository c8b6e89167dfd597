// fuzz regression (CRASH at 65f3a7a): a row reduction that reads no array (s += 1 counts
// the columns): "internal error (KeyError: 'out')". Found by benchmarks/fuzz.py (seed 7,
// k7_72, k7_111).
// fuzz-spec: {"extents": {"A": "m * n", "out": "m"}}
// input: {"A": [1, 2, 3, 4, 5, 6], "out": [0, 0], "m": 2, "n": 3}
void f(int *A, int *out, int m, int n) {
  for (int i = 0; i < m; i++) {
    int s = 0;
    for (int j = 0; j < n; j++) s += 1;
    out[i] = s;
  }
}
