// class 2 variant: -2147483648 is -(a long), a constant that fits int.
// expect: verified
void f(int *a, int *out, int n) { for (int i = 0; i < n; i++) out[i] = a[i] < 0 ? -2147483648 : a[i]; }
