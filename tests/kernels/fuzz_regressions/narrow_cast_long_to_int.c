// fuzz regression (VERIFIED-BUT-WRONG at 65f3a7a): an explicit cast (int) of a long is
// modelled as the identity. Found by benchmarks/fuzz.py (seed 7, k7_41).
// input: {"a": [65536, 9223372036854775806], "out": [0, 0], "n": 2}
// gcc -O0 -fwrapv / -O2:  out = [65536, -2]
// generated NumPy:        out = [65536, 9223372036854775806]
void f(long *a, long *out, int n) { for (int i = 0; i < n; i++) out[i] = (int) a[i]; }
