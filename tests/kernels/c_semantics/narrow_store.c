// class 3 (narrowing): the long -> int store is implementation-defined (GCC: modulo 2^32).
// input: {"a": [4294967295], "out": [0], "n": 1}
// C: out = [0]
// expect: refused "conversion from 'long' to 'int'"
void f(long *a, int *out, int n) { for (int i = 0; i < n; i++) out[i] = a[i] + 1; }
