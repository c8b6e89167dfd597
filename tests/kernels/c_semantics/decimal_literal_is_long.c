// class 2 variant: the decimal 4294967295 is a long (C11 6.4.4.1), so the sum is exact.
// expect: verified
void f(long *a, long *out, int n) { for (int i = 0; i < n; i++) out[i] = a[i] / 2 + 4294967295; }
