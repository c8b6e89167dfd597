// class 1: a[i] < 10u converts a negative a[i] to a huge unsigned value.
// input: {"a": [-1], "n": 1}
// expect: refused "comparison '<' in 'unsigned int'"
int f(int *a, int n) { int c = 0; for (int i = 0; i < n; i++) if (a[i] < 10u) c++; return c; }
