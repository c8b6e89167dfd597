// fuzz regression (VERIFIED-BUT-WRONG at 65f3a7a): 0xFFFFFFFF is an unsigned int, so
// a[i] + 0xFFFFFFFF is computed modulo 2^32; the tool adds the number 4294967295.
// input: {"a": [1, -8], "out": [4, -4294967295], "n": 2}
// gcc -O0 -fwrapv / -O2:  out = [0, 4294967287]
// generated NumPy:        out = [4294967296, 4294967287]
void f(int *a, long *out, int n) { for (int i = 0; i < n; i++) out[i] = a[i] + 0xFFFFFFFF; }
