// class 3 variant: an explicit (int) cast of a long narrows too.
// expect: refused "conversion from 'long' to 'int'"
void f(long *a, int *out, int n) { for (int i = 0; i < n; i++) out[i] = (int)a[i]; }
