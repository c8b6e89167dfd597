// class 3 variant: s += a[i] converts the long sum back to int at every step.
// input: {"a": [1, -9223372036854775808], "n": 2}
// expect: refused "conversion from 'long' to 'int'"
long f(long *a, int n) { int s = 0; for (int i = 0; i < n; i++) s += a[i]; return s; }
