// fuzz regression (VERIFIED-BUT-WRONG at 65f3a7a): returning a long from a function
// declared int drops the conversion to int. Found by benchmarks/fuzz.py (seed 7, k7_139).
// input: {"a": [1, -9223372036854775808, 1], "n": 3}
// gcc -O0 -fwrapv / -O2:  return 2
// generated NumPy:        return -9223372036854775806
int f(long *a, int n) { long s = 0; for (int i = 0; i < n; i++) s += a[i]; return s; }
