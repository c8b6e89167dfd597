// class 1 (unsigned arithmetic): (a[i] - 1u) / 2 is computed in unsigned int.
// input: {"a": [0], "out": [0], "n": 1}
// C: out = [2147483647]
// expect: refused "unsigned arithmetic '-'"
void f(int *a, int *out, int n) { for (int i = 0; i < n; i++) out[i] = (a[i] - 1u) / 2; }
