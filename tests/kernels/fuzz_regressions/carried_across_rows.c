// fuzz guard (clean refusal at 65f3a7a, a known bug class): s is not reset per row, so
// out[i] is the running total up to the end of row i.
// fuzz-spec: {"extents": {"A": "m * n", "out": "m"}}
// input: {"A": [1, 2, 3, 4], "out": [0, 0], "m": 2, "n": 2}
// C: out = [3, 10]
void f(int *A, int *out, int m, int n) {
  int s = 0;
  for (int i = 0; i < m; i++) {
    for (int j = 0; j < n; j++) s += A[i*n+j];
    out[i] = s;
  }
}
