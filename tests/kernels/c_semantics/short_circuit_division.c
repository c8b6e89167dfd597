// class 10: the division is evaluated only when b[i] != 1000 (&& short-circuits).
// input: {"a": [7, 3000], "b": [1000, 1001], "out": [0, 0], "n": 2}
// C: out = [0, 1]
// expect: verified
void f(int *a, int *b, int *out, int n) {
  for (int i = 0; i < n; i++) out[i] = (b[i] != 1000 && a[i] / (b[i] - 1000) > 2) ? 1 : 0;
}
