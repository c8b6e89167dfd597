// class 2 (literal types): 0xFFFFFFFF is an unsigned int, so a[i] + 0xFFFFFFFF wraps
// (modelled), and storing the unsigned sum into an int array narrows (refused).
// input: {"a": [0], "out": [0], "n": 1}
// expect: refused "conversion from 'unsigned int' to 'int'"
void f(int *a, int *out, int n) { for (int i = 0; i < n; i++) out[i] = a[i] + 0xFFFFFFFF; }
