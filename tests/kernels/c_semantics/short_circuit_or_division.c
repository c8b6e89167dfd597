// class 10 variant: || evaluates the division only when d[i] is not 0.
// input: {"a": [5, 9], "d": [0, 3], "out": [0, 0], "n": 2}
// expect: sound
void f(int *a, int *d, int *out, int n) {
  for (int i = 0; i < n; i++) out[i] = (d[i] == 0 || a[i] % d[i] == 0) ? a[i] : 0;
}
