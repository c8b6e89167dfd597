// fuzz regression (VERIFIED-BUT-WRONG at 65f3a7a): initialising an int local from a long
// drops the conversion to int.
// input: {"a": [-9223372036854775807, 65535], "out": [127, 255], "n": 2}
// gcc -O0 -fwrapv / -O2:  out = [1, 65535]
// generated NumPy:        out = [-9223372036854775807, 65535]
void f(long *a, long *out, int n) { for (int i = 0; i < n; i++) { int s = a[i]; out[i] = s; } }
