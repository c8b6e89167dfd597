// class 1 (unsigned arithmetic): (a[i] - 1u) / 2 is computed in unsigned int, modelled
// exactly (reduced modulo 2^32); the quotient fits int, so the store keeps it.
// input: {"a": [0], "out": [0], "n": 1}
// C: out = [2147483647]
// expect: verified "uint32"
void f(int *a, int *out, int n) { for (int i = 0; i < n; i++) out[i] = (a[i] - 1u) / 2; }
