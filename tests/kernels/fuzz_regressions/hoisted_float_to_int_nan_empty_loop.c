// fuzz regression (VERIFIED-BUT-WRONG, same run as hoisted_float_to_int_fill_empty_loop.c):
// a loop-invariant double -> int conversion (int)(k / k) added to a[i]; with n = 0 and
// k = 0.0 C never divides nor converts, the generated NumPy computes int(nan) outside the
// loop and raises ValueError ("cannot convert float NaN to integer").
// fuzz-spec: {"extents": {"a": "n", "out": "n"}}
// input: {"a": [], "out": [], "k": 0.0, "n": 0}
// gcc -O0 -fwrapv / -O2:  out = []
// generated NumPy:        ValueError: cannot convert float NaN to integer
void f(int *a, int *out, double k, int n) {
  for (int i = 0; i < n; i++) out[i] = a[i] + (int)(k / k);
}
