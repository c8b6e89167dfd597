// fuzz regression (PRECONDITION-NOT-CHECKED at d11c01f): the proof assumes "the loop runs a
// non-negative number of times: 1 <= n", but the generated NumPy does not check it: for
// n = 0 C runs no iteration and returns 0, the generated code returns 3 * (0 - 1) = -3.
// Found by benchmarks/fuzz.py (seed 4, k4_191: s = s + 2147483647L from i = 1).
// input: {"a": [], "n": 0}
// gcc -O0 -fwrapv / -O2:  return 0
// generated NumPy:        return -3
long f(long *a, long n) { long s = 0; for (int i = 1; i < n; i++) s = s + 3; return s; }
