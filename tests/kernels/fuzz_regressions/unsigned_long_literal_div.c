// fuzz regression (VERIFIED-BUT-WRONG at 65f3a7a): 2UL is an unsigned long, so a[i] / 2UL
// divides a[i] converted to unsigned long. Found by benchmarks/fuzz.py (seed 7, k7_169:
// ... / (b[i] * 128UL)).
// input: {"a": [-5, 0], "out": [7, -5], "n": 2}
// gcc -O0 -fwrapv / -O2:  out = [9223372036854775805, 0]
// generated NumPy:        out = [-2, 0]
void f(long *a, long *out, int n) { for (int i = 0; i < n; i++) out[i] = a[i] / 2UL; }
