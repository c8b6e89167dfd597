// class 1: a[i] < 10u converts a negative a[i] to a huge unsigned value: modelled exactly
// (the operand is reduced modulo 2^32 before the comparison), so -1 does not count.
// input: {"a": [-1], "n": 1}
// expect: verified "uint32"
int f(int *a, int n) { int c = 0; for (int i = 0; i < n; i++) if (a[i] < 10u) c++; return c; }
