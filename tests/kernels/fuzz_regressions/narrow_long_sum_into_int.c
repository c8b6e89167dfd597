// fuzz regression (VERIFIED-BUT-WRONG at 65f3a7a): an int accumulator updated with long
// values (s += a[i], a long) is modelled as a mathematical integer: the conversion of each
// new value to int is dropped. Found by benchmarks/fuzz.py (seed 7, k7_0, k7_226, k7_239).
// input: {"a": [1, -9223372036854775808], "n": 2}
// gcc -O0 -fwrapv / -O2:  return 1
// generated NumPy:        return -9223372036854775807
long f(long *a, int n) { int s = 0; for (int i = 0; i < n; i++) s += a[i]; return s; }
