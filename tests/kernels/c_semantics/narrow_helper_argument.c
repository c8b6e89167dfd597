// class 3 variant: passing a long to an int parameter of a helper narrows.
// expect: refused "conversion from 'long' to 'int'"
static int twice(int x) { return 2 * x; }
void f(long *a, long *out, int n) { for (int i = 0; i < n; i++) out[i] = twice(a[i]); }
