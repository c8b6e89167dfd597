// fuzz regression (VERIFIED-BUT-WRONG in the working tree of 18:48, after the hoisted-division
// fix): k + k is evaluated only inside the loop; with n = 0 C never adds (no signed overflow,
// no undefined behaviour) and leaves out unchanged, but the generated NumPy evaluates k + k
// outside the loop and raises OverflowError converting it to int64.
// Found by benchmarks/fuzz.py (seed 99, k99_360: a row reduction of clampv(k + k, k % 7u) with
// m = 0 and k = 9223372036854775806), minimised by hand.
// input: {"a": [], "out": [], "k": 9223372036854775806, "n": 0}
// gcc -O0 -fwrapv / -O2:  out = []
// generated NumPy:        OverflowError: Python int too large to convert to C long
void f(long *a, long *out, long k, int n) { for (int i = 0; i < n; i++) out[i] = a[i] + (k + k); }
