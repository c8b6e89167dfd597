// fuzz regression (CRASH at 65f3a7a): a select in a row reduction whose branches are a
// constant and the matrix element: "internal error (TypeError: not a 2-D TensIR term:
// TensorSelect(...))". Found by benchmarks/fuzz.py (seed 7, k7_1, k7_175).
// fuzz-spec: {"extents": {"A": "m * n", "out": "m"}}
// input: {"A": [1, 7, 3, 9], "out": [0, 0], "m": 2, "n": 2}
void f(int *A, int *out, int m, int n) {
  for (int i = 0; i < m; i++) {
    int s = 0;
    for (int j = 0; j < n; j++) s = s + (A[i*n+j] < 5 ? 10 : A[i*n+j]);
    out[i] = s;
  }
}
