// fuzz regression (VERIFIED-BUT-WRONG at b1282cd): LONG_MIN / 3 is well defined in C
// (-3074457345618258602); the generated NumPy's truncating division overflows on LONG_MIN
// and returns a positive number. Found by benchmarks/fuzz.py (seed 1, k1_162:
// out[i] = a[i] / (0x7fffffff / 3LL) with a[i] = LONG_MIN), minimised by hand.
// input: {"a": [-9223372036854775808], "out": [0], "n": 1}
// gcc -O0 -fwrapv / -O2:  out = [-3074457345618258602]
// generated NumPy:        out = [3074457345618258603]  (np.abs(LONG_MIN) overflows in _c_div)
void f(long *a, long *out, int n) { for (int i = 0; i < n; i++) out[i] = a[i] / 3; }
