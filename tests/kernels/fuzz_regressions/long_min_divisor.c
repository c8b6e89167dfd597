// fuzz regression (VERIFIED-BUT-WRONG at b1282cd): 255 / LONG_MIN is 0 in C; the generated
// NumPy's _c_div takes np.abs(LONG_MIN), which overflows (stays negative), and returns 1.
// Found by benchmarks/fuzz.py (seed 1, k1_825: k / a[i] with a[i] = LONG_MIN).
// input: {"a": [-9223372036854775808], "out": [0], "n": 1}
// gcc -O0 -fwrapv / -O2:  out = [0]
// generated NumPy:        out = [1]
void f(long *a, long *out, int n) { for (int i = 0; i < n; i++) out[i] = 255 / a[i]; }
