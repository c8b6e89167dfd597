// class 4 (the preprocessor): the kernel sees SCALE 2; the later redefinition does not apply.
// input: {"a": [1], "out": [0], "n": 1}
// C: out = [2]
// expect: verified "2"
#define SCALE 2
void f(int *a, int *out, int n) { for (int i = 0; i < n; i++) out[i] = a[i] * SCALE; }
#undef SCALE
#define SCALE 3
