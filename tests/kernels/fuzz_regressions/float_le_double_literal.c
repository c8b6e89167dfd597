// fuzz regression (VERIFIED-BUT-WRONG at 65f3a7a): a[i] <= 0.1 compares the float a[i]
// converted to double with the double 0.1; the generated NumPy compares in float32
// (float32(0.1) <= float32(0.1) is true, 0.100000001490116 <= 0.1 is false).
// input: {"a": [0.10000000149011612], "out": [7], "n": 1}
// gcc -O0 -fwrapv / -O2:  out = [0]
// generated NumPy:        out = [1]
void f(float *a, int *out, int n) { for (int i = 0; i < n; i++) out[i] = a[i] <= 0.1 ? 1 : 0; }
