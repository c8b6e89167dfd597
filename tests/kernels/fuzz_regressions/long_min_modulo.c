// fuzz regression (VERIFIED-BUT-WRONG at 42b169a): LONG_MIN % 7 is -1 in C; the generated
// NumPy computes x - y * _c_div(x, y) with _c_div overflowing on np.abs(LONG_MIN), giving -6.
// Found by benchmarks/fuzz.py (seed 2026, k2026_412: s = s + a[i]; return s % 7).
// input: {"a": [-9223372036854775808], "n": 1}
// gcc -O0 -fwrapv / -O2:  return -1
// generated NumPy:        return -6
long f(long *a, int n) { long s = 0; for (int i = 0; i < n; i++) s = s + a[i]; return s % 7; }
