// class 2 variant: a constant expression in unsigned int that does not wrap is exact.
// expect: verified
void f(int *a, int *out, int n) { for (int i = 0; i < n; i++) out[i] = a[i] / 4 + (int)(0x10 + 3u); }
