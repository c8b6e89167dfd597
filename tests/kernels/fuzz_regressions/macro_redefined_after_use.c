// fuzz regression (VERIFIED-BUT-WRONG at 65f3a7a): the macro K is redefined after the
// function; the body must use the definition in force where it is written (5), the tool
// used the last #define of the file (7).
// input: {"a": [-2], "out": [-5], "n": 1}
// gcc -O0 -fwrapv / -O2:  out = [-10]
// generated NumPy:        out = [-14]
#define K 3
void f(int *a, int *out, int n) {
#undef K
#define K 5
  for (int i = 0; i < n; i++) out[i] = a[i] * K;
}
#undef K
#define K 7
