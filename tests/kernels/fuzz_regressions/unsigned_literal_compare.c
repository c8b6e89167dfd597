// fuzz regression (VERIFIED-BUT-WRONG at 65f3a7a): 10u is an unsigned int, so a[i] < 10u
// compares a[i] converted to unsigned (-6 becomes 4294967290): the tool compares as signed.
// Found by benchmarks/fuzz.py (seed 7, k7_233: int s = -1u; ... (a[i] + (1U - a[i])) > s).
// input: {"a": [-6, 256], "n": 2}
// gcc -O0 -fwrapv / -O2:  return 0
// generated NumPy:        return 1
int f(int *a, int n) { int s = 0; for (int i = 0; i < n; i++) if (a[i] < 10u) s += 1; return s; }
