// fuzz regression (VERIFIED-BUT-WRONG at 65f3a7a): a long value stored into an int array
// is modelled without the conversion to int (C: modulo 2^32, implementation-defined, gcc wraps).
// Found by benchmarks/fuzz.py (seed 7, kernel k7_263), minimised by hand.
// input: {"a": [-19526903196091696], "out": [256], "n": 1}
// gcc -O0 -fwrapv / -O2:  out = [-1888552239]
// generated NumPy:        out = [-19526903196091695]
void f(long *a, int *out, int n) { for (int i = 0; i < n; i++) out[i] = a[i] + 1; }
