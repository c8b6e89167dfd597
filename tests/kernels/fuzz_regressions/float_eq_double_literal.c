// fuzz regression (VERIFIED-BUT-WRONG at 65f3a7a): a[i] == 0.1 is false for every float
// a[i] (no float equals the double 0.1); the generated NumPy counts float32(0.1).
// input: {"a": [0.10000000149011612], "n": 1}
// gcc -O0 -fwrapv / -O2:  return 0
// generated NumPy:        return 1
int f(float *a, int n) { int c = 0; for (int i = 0; i < n; i++) if (a[i] == 0.1) c++; return c; }
