// fuzz regression (VERIFIED-BUT-WRONG at 15c457b): 100 / k is evaluated only inside the
// loop; with n = 0 C never divides (no undefined behaviour) and leaves out unchanged, but the
// generated NumPy evaluates 100 // k outside any guard and raises ZeroDivisionError. The
// stated assumption "integer divisors are non-zero wherever the source divides" holds here.
// Found by benchmarks/fuzz.py (seed 2026, k2026_1652: out[i] = (k / k) * (a[i] * k) with
// k = 0 and a loop that runs no iteration), minimised by hand.
// input: {"a": [], "out": [], "k": 0, "n": 0}
// gcc -O0 -fwrapv / -O2:  out = []
// generated NumPy:        ZeroDivisionError: integer division or modulo by zero
void f(long *a, long *out, long k, int n) { for (int i = 0; i < n; i++) out[i] = a[i] * (100 / k); }
