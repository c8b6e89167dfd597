// class 3 variant: returning a long from an int function narrows.
// expect: refused "conversion from 'long' to 'int'"
int f(long *a, int n) { long s = 0; for (int i = 0; i < n; i++) s += a[i]; return s; }
