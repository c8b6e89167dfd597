// fuzz regression (VERIFIED-BUT-WRONG at be91c42): 256 * k is evaluated in C only when
// a[i] < 1; here no element is, so C never multiplies (no signed overflow, no undefined
// behaviour) and leaves out unchanged, but the generated NumPy computes 256 * k as a Python
// int outside the select and raises OverflowError converting it to int64 (the family of
// hoisted_overflow_empty_loop.c, with n > 0).
// Found by benchmarks/fuzz.py (seed 777, k777_46: a descending loop; the ascending one
// below fails the same way), minimised by hand.
// input: {"a": [7], "out": [0], "k": 5064819248455681394, "n": 1}
// gcc -O0 -fwrapv / -O2:  out = [0]
// generated NumPy:        OverflowError: Python int too large to convert to C long
void f(long *a, long *out, long k, int n) {
  for (int i = 0; i < n; i++) if (a[i] < 1) out[i] = 256 * k;
}
