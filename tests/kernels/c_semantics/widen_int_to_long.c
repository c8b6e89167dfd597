// class 3 variant: int -> long keeps every value; the long product cannot wrap for int inputs.
// expect: verified
void f(int *a, long *out, int n) { for (int i = 0; i < n; i++) out[i] = (long)a[i] * 3; }
